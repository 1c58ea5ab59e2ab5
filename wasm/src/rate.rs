//! Rate decisions across the wasm boundary (decide, preflight, classify, GraphQL cost, ledger).
