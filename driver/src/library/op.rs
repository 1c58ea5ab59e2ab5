//! How the library's ops are listed: each part of the library answers its own enum, declared
//! with [`ops!`] and listed once (`ALL`), so an op is dispatched by a match the compiler checks,
//! not by comparing strings ([`super::Op`] holds them all).

/// An enum of ops with its `ALL` list and the names the JS asks by.
macro_rules! ops {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident => $text:literal,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)*
        }

        impl $name {
            /// Every op, once.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The name the JS asks by.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }

            /// The op of a name.
            pub fn parse(name: &str) -> Option<$name> {
                $name::ALL.iter().copied().find(|op| op.as_str() == name)
            }
        }
    };
}
pub(crate) use ops;
