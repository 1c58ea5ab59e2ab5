//! Property tests: arbitrary bytes never panic the validator; valid receipts round-trip exactly.

use deferral_core::receipt::{check, validate, Bindings, Reason, Receipt};
use proptest::prelude::*;

fn hex64() -> impl Strategy<Value = String> {
    "[0-9a-f]{64}"
}

fn receipt() -> impl Strategy<Value = Receipt> {
    (
        0u64..(1 << 53) - 86_400_000,
        0u64..86_400_000,
        0u64..86_400_000,
        prop_oneof![
            Just(Reason::RestReserve),
            Just(Reason::GraphqlReserve),
            Just(Reason::ProviderSecondaryLimit)
        ],
        (hex64(), hex64(), proptest::option::of(hex64())),
        proptest::option::of((hex64(), hex64())),
        any::<bool>(),
    )
        .prop_map(|(issued, a, b, reason, (s, r, p), own, fresh)| {
            let (after, by) = (issued + a.min(b), issued + a.max(b));
            let bindings = Bindings {
                scope_digest: s,
                request_digest: r,
                plan_digest: p,
            };
            let h = Receipt::handoff(reason, issued, after, by, bindings, fresh).unwrap();
            match own {
                Some((w, c)) => h.retain(&w, &c).unwrap(),
                None => h,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        prop_assert_eq!(check(&bytes), validate(&bytes).map(|_| ()));
    }

    #[test]
    fn mutated_receipts_never_panic(r in receipt(), at in 0usize..600, byte in any::<u8>()) {
        let mut bytes = r.to_json().into_bytes();
        let i = at % bytes.len();
        bytes[i] = byte;
        // check is validate without building the receipt: the same verdict, the same error.
        prop_assert_eq!(check(&bytes), validate(&bytes).map(|_| ()));
        if let Ok(parsed) = validate(&bytes) {
            // Whatever still validates must write back to something that validates the same.
            prop_assert_eq!(validate(parsed.to_json().as_bytes()).unwrap(), parsed);
        }
    }

    #[test]
    fn valid_receipts_round_trip(r in receipt()) {
        let text = r.to_json();
        let back = validate(text.as_bytes()).unwrap();
        prop_assert_eq!(&back, &r);
        prop_assert_eq!(back.to_json(), text);
    }
}
