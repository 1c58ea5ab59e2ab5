//! The host's process is not dumpable (Linux `prctl(PR_SET_DUMPABLE, 0)`), set before anything
//! else runs: an `exec:` program runs as the host's user, and a process of the same user may
//! otherwise read the host's `/proc/<pid>/environ` (where `GITHUB_TOKEN` and
//! `DEFERRAL_SERVE_TOKEN` are), its memory (`/proc/<pid>/mem`: the bearer token, the webhook's
//! secrets, the App's key and installation tokens) or attach a debugger to it. A process that
//! is not dumpable is open to these only with `CAP_SYS_PTRACE` (root), and leaves no core dump.
//!
//! The launched program itself gets a cleared environment (`launch::exec`) and is dumpable
//! again once it `exec`s (the kernel resets the flag), so its own tools work as usual.

/// Makes the process not dumpable; a failure is said on stderr and the host goes on (the
/// protection is missing, nothing else is).
pub fn seal() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl(2) with PR_SET_DUMPABLE takes integers only and touches no memory.
        if unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) } != 0 {
            eprintln!(
                "deferral-host: cannot make the process non-dumpable ({}): a program of this user could read its environment",
                std::io::Error::last_os_error()
            );
        }
    }
}
