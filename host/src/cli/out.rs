//! `out!`: how every command prints its answer.

/// Prints one line on stdout. When the reader has gone away (`deferral-host show ID | head`)
/// the process ends quietly instead of panicking on the broken pipe.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if writeln!(std::io::stdout().lock(), $($arg)*).is_err() {
            std::process::exit(0);
        }
    }};
}
