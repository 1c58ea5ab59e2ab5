//! The `deferral-host` binary; everything lives in the library (see `cli`).

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(deferral_host::cli::run())
}
