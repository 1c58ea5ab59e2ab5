//! A loopback address that refuses every connection for as long as the test holds it.
//!
//! A port bound and then released is free for any other test to take, so "nothing listens
//! there" stops being true the moment a test beside it binds port 0. A [`Refusing`] keeps a TCP
//! socket bound to a port the kernel picked and never listens on it: the port stays taken (no
//! other socket can bind it), and a connection to it is refused at once, before anything is sent.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};

pub struct Refusing {
    fd: i32,
    pub addr: SocketAddr,
}

impl Refusing {
    pub fn new() -> Refusing {
        // SAFETY: plain socket calls on a descriptor this value owns and closes in Drop; the
        // address structures are zeroed and sized as the kernel expects.
        unsafe {
            let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
            assert!(fd >= 0, "socket: {}", std::io::Error::last_os_error());
            let mut sin: libc::sockaddr_in = std::mem::zeroed();
            sin.sin_family = libc::AF_INET as libc::sa_family_t;
            sin.sin_addr.s_addr = u32::from(Ipv4Addr::LOCALHOST).to_be();
            sin.sin_port = 0;
            let size = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
            let bound = libc::bind(fd, std::ptr::from_ref(&sin).cast(), size);
            assert_eq!(bound, 0, "bind: {}", std::io::Error::last_os_error());
            let mut len = size;
            let named = libc::getsockname(fd, std::ptr::from_mut(&mut sin).cast(), &raw mut len);
            assert_eq!(named, 0, "getsockname: {}", std::io::Error::last_os_error());
            let port = u16::from_be(sin.sin_port);
            Refusing {
                fd,
                addr: SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, port)),
            }
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl Drop for Refusing {
    fn drop(&mut self) {
        // SAFETY: the descriptor opened in `new`, closed once.
        unsafe { libc::close(self.fd) };
    }
}
