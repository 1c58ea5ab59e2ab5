//! The files the host reads its secrets and settings from, read only when no one but the
//! host's user (and root) can know or change what they hold:
//!
//! * a **secret** (the port's token file, the webhook's secret file, the GitHub App's key) is
//!   readable and writable by no one else;
//! * **settings** (`run --config`) are writable by no one else: whoever writes them chooses
//!   what the host runs (`allow-launch`, `[[watch]]`). Anyone may read them: they hold no
//!   secret, only the names of the files that do;
//! * either is owned by the host's user or by root. Another user's file is refused whatever its
//!   mode, since its owner can change the mode and the content at any time. Root's is taken:
//!   root can change this host's files and program anyway, and systemd's credentials
//!   (`LoadCredential=`) are root's files that the service's user may read.
//!
//! "No one else" is read from the mode's group and other bits and, when the file has one, from
//! its POSIX access control list: systemd gives a credential to the service's user by an ACL
//! entry (mode `0440` with the mask `r--`), which names this user and no one else.
//!
//! The file is opened without blocking (a FIFO is refused, never waited on) and checked on the
//! open descriptor, so a file swapped after the check is not the one read.

use std::io::Read;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

/// What the file holds, and so who else may not touch it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holds {
    /// No one else may read or write it.
    Secret,
    /// No one else may write it.
    Settings,
}

/// Why a file was not read. [`Refusal::message`] says it in a sentence.
#[derive(Debug)]
pub enum Refusal {
    /// It could not be opened or read.
    Unreadable(std::io::Error),
    /// A FIFO, a device or a directory.
    NotAFile,
    /// Owned by a user that is neither this one nor root.
    Owner { uid: u32, me: u32 },
    /// Others may read (a secret) or write it (`mode` is its mode, `acl` whether an access
    /// control list is why).
    Exposed { mode: u32, acl: bool },
    /// Larger than the reader takes.
    TooLarge { max: u64 },
}

/// Reads the file at `path` when `holds` allows it, at most `max` bytes.
pub fn read(path: &Path, holds: Holds, max: u64) -> Result<Vec<u8>, Refusal> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(Refusal::Unreadable)?;
    let meta = file.metadata().map_err(Refusal::Unreadable)?;
    if !meta.is_file() {
        return Err(Refusal::NotAFile);
    }
    let me = euid();
    if meta.uid() != me && meta.uid() != 0 {
        return Err(Refusal::Owner {
            uid: meta.uid(),
            me,
        });
    }
    let mode = meta.mode() & 0o7777;
    let acl = access_acl(file.as_raw_fd());
    let others = match &acl {
        Some(entries) => acl_others(entries, meta.uid(), me),
        None => (mode >> 3 | mode) & 0o7,
    };
    let refused = match holds {
        Holds::Secret => others != 0,
        Holds::Settings => others & 0o2 != 0,
    };
    if refused {
        return Err(Refusal::Exposed {
            mode,
            acl: acl.is_some(),
        });
    }
    let mut bytes = Vec::new();
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(Refusal::Unreadable)?;
    if bytes.len() as u64 > max {
        return Err(Refusal::TooLarge { max });
    }
    Ok(bytes)
}

impl Refusal {
    /// The refusal in one sentence about `what` (such as "the port's token file /etc/x"), at
    /// `path`, saying what to do.
    pub fn message(&self, what: &str, path: &Path, holds: Holds) -> String {
        let shown = path.display();
        match self {
            Refusal::Unreadable(err) => format!("cannot read {what}: {err}"),
            Refusal::NotAFile => format!("{what} is not a regular file (a FIFO, a device or a directory)"),
            Refusal::Owner { uid, me } => format!(
                "{what} is owned by uid {uid}, not by this user (uid {me}) or root: its owner can change it at any time. Give it to this user (chown {me} {shown}) or to root"
            ),
            Refusal::Exposed { mode, acl: true } => format!(
                "{what} has an access control list that lets other users {} it (mode {mode:04o}; getfacl {shown}): setfacl -b {shown} && chmod {} {shown}",
                holds.exposed_verb(),
                holds.chmod()
            ),
            Refusal::Exposed { mode, acl: false } => format!(
                "{what} may be {} by {} (mode {mode:04o}){}: chmod {} {shown}",
                holds.exposed_participle(),
                who(*mode, holds),
                match holds {
                    Holds::Secret => "",
                    Holds::Settings => ", who could then choose what this host runs",
                },
                holds.chmod()
            ),
            Refusal::TooLarge { max } => format!("{what} is larger than {max} bytes"),
        }
    }
}

impl Holds {
    fn exposed_verb(self) -> &'static str {
        match self {
            Holds::Secret => "read or change",
            Holds::Settings => "change",
        }
    }

    fn exposed_participle(self) -> &'static str {
        match self {
            Holds::Secret => "read or changed",
            Holds::Settings => "changed",
        }
    }

    fn chmod(self) -> &'static str {
        match self {
            Holds::Secret => "600",
            Holds::Settings => "go-w",
        }
    }
}

/// Who the mode lets in, beyond the owner.
fn who(mode: u32, holds: Holds) -> &'static str {
    let bits = match holds {
        Holds::Secret => 0o7,
        Holds::Settings => 0o2,
    };
    match (mode >> 3 & bits != 0, mode & bits != 0) {
        (true, true) => "its group and others",
        (true, false) => "its group",
        _ => "others",
    }
}

fn euid() -> u32 {
    // SAFETY: geteuid(2) cannot fail and touches no memory.
    unsafe { libc::geteuid() }
}

/// One entry of a POSIX access control list: its tag, its permission bits, its user or group.
#[derive(Debug, Clone, Copy)]
struct AclEntry {
    tag: u16,
    perm: u16,
    id: u32,
}

const ACL_USER: u16 = 0x02;
const ACL_GROUP_OBJ: u16 = 0x04;
const ACL_GROUP: u16 = 0x08;
const ACL_MASK: u16 = 0x10;
const ACL_OTHER: u16 = 0x20;

/// The file's access ACL (`system.posix_acl_access`), when it has one. The kernel's format: a
/// little-endian header (version 2), then 8-byte entries (tag, permissions, id).
fn access_acl(fd: i32) -> Option<Vec<AclEntry>> {
    let mut buf = [0u8; 4096];
    // SAFETY: the name is a NUL-terminated literal, the buffer is ours and its length is given.
    let n = unsafe {
        libc::fgetxattr(
            fd,
            c"system.posix_acl_access".as_ptr(),
            buf.as_mut_ptr().cast(),
            buf.len(),
        )
    };
    let n = usize::try_from(n).ok()?;
    let data = &buf[..n];
    if data.len() < 4 || u32::from_le_bytes(data[..4].try_into().ok()?) != 2 {
        return None;
    }
    Some(
        data[4..]
            .chunks_exact(8)
            .map(|e| AclEntry {
                tag: u16::from_le_bytes([e[0], e[1]]),
                perm: u16::from_le_bytes([e[2], e[3]]),
                id: u32::from_le_bytes([e[4], e[5], e[6], e[7]]),
            })
            .collect(),
    )
}

/// The permission bits the ACL grants anyone but the file's owner and this user: its group,
/// named groups and other users (each but "other" limited by the mask), and others.
fn acl_others(entries: &[AclEntry], owner: u32, me: u32) -> u32 {
    let mask = entries
        .iter()
        .find(|e| e.tag == ACL_MASK)
        .map_or(0o7, |e| u32::from(e.perm));
    entries.iter().fold(0, |bits, e| {
        let perm = u32::from(e.perm) & 0o7;
        bits | match e.tag {
            ACL_USER if e.id != owner && e.id != me => perm & mask,
            ACL_GROUP_OBJ | ACL_GROUP => perm & mask,
            ACL_OTHER => perm,
            _ => 0,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(tag: u16, perm: u16, id: u32) -> AclEntry {
        AclEntry { tag, perm, id }
    }

    const USER_OBJ: u16 = 0x01;

    #[test]
    fn a_systemd_credential_is_this_users_only() {
        // root:root 0400 with user:1000:r-- and the mask r--, as systemd writes one.
        let credential = [
            entry(USER_OBJ, 4, u32::MAX),
            entry(ACL_USER, 4, 1000),
            entry(ACL_GROUP_OBJ, 0, u32::MAX),
            entry(ACL_MASK, 4, u32::MAX),
            entry(ACL_OTHER, 0, u32::MAX),
        ];
        assert_eq!(acl_others(&credential, 0, 1000), 0);
        // The same file read by another service's user: 1000 is someone else.
        assert_eq!(acl_others(&credential, 0, 1001), 4);
        // A named group the mask lets through.
        let mut grouped = credential.to_vec();
        grouped.push(entry(ACL_GROUP, 4, 50));
        assert_eq!(acl_others(&grouped, 0, 1000), 4);
        // ...and one the mask stops.
        grouped[3] = entry(ACL_MASK, 0, u32::MAX);
        assert_eq!(acl_others(&grouped, 0, 1000), 0);
    }
}
