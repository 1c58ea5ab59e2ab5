//! The CLI's words for people: the usage, each command's summary and `--help` text, and the
//! flags each command takes. The Action and the CLI read the same inputs under the same names
//! (`driver/src/attempt/inputs.rs` holds their defaults).

/// One command: its name, one line for the usage, its `--help`, and its flags.
pub struct Command {
    pub name: &'static str,
    pub summary: &'static str,
    pub help: &'static str,
    /// Flags that take a value (`gate` and `resume` share theirs; resume adds its own).
    pub values: &'static [&'static str],
    pub own_values: &'static [&'static str],
    /// Flags that stand alone.
    pub booleans: &'static [&'static str],
    /// Flags that take a value and may repeat.
    pub lists: &'static [&'static str],
}

/// The flags `gate` and `resume` share, named as the Action's inputs.
const GATE_VALUES: &[&str] = &[
    "rest-reserve",
    "graphql-reserve",
    "plan",
    "scope",
    "request",
    "resume-buffer",
    "resume-window",
    "resume-jitter",
    "fresh-approval",
    "approval",
    "ledger-file",
    "rate-state",
    "api-url",
];
const OUTPUT_FLAGS: &[&str] = &["quiet", "verdict"];

/// Every command, in the order the usage lists them.
pub const COMMANDS: [Command; 6] = [
    Command {
        name: "gate",
        summary: "Check the rate state before a batch; ready, or deferred with a receipt.",
        help: GATE_HELP,
        values: GATE_VALUES,
        own_values: &[
            "coordinator-url",
            "coordinator-launch",
            "coordinator-pool",
            "coordinator-priority",
            "coordinator-fairness-key",
            "coordinator-commit",
        ],
        booleans: OUTPUT_FLAGS,
        lists: &[],
    },
    Command {
        name: "resume",
        summary: "Run the fresh resume preflight for a receipt, then the gate.",
        help: RESUME_HELP,
        values: GATE_VALUES,
        own_values: &["receipt", "wakeup-handle"],
        booleans: OUTPUT_FLAGS,
        lists: &[],
    },
    Command {
        name: "validate",
        summary: "Check a deferred-receipt-v1 strictly.",
        help: VALIDATE_HELP,
        values: &[],
        own_values: &[],
        booleans: &[],
        lists: &[],
    },
    Command {
        name: "digest",
        summary: "SHA-256 of the RFC 8785 canonical JSON of an input.",
        help: DIGEST_HELP,
        values: &["kind", "file"],
        own_values: &[],
        booleans: &[],
        lists: &[],
    },
    Command {
        name: "explain",
        summary: "Describe a receipt for a person.",
        help: EXPLAIN_HELP,
        values: &[],
        own_values: &[],
        booleans: &["text", "quiet"],
        lists: &[],
    },
    Command {
        name: "observe",
        summary: "Record a response's rate-limit headers into the ledger.",
        help: OBSERVE_HELP,
        values: &["ledger-file", "response", "status", "body", "path"],
        own_values: &[],
        booleans: &[],
        lists: &["header"],
    },
];

/// The command named `name`.
pub fn command(name: &str) -> Option<&'static Command> {
    COMMANDS.iter().find(|c| c.name == name)
}

/// `deferral --version`: the name and the version, one line (the npm package's version, which
/// `scripts/release.sh` checks equals the workspace's).
pub fn version() -> String {
    format!("deferral {}\n", env!("CARGO_PKG_VERSION"))
}

/// `deferral --help`.
pub fn usage() -> String {
    let mut text = String::from(
        "Usage: deferral COMMAND [ARGS] (deferral COMMAND --help for details)\n\
         \x20      deferral --version\n\nCommands:\n",
    );
    for c in &COMMANDS {
        text.push_str(&format!("  {:<9} {}\n", c.name, c.summary));
    }
    text.push_str(
        "\nOutput: exactly one line of JSON on stdout; human text only on stderr.\n\
         Exit codes: 0 ready/valid, 2 invalid input, 3 authentication, 4 provider or transport failure,\n\
         5 blocked, 6 deferred.\n",
    );
    text
}

/// The flags of `gate` and `resume`, as a literal both help texts are built from.
macro_rules! gate_flags_help {
    () => {
        "  --rest-reserve N|P%     keep this much of the REST limit (default 10%)
  --graphql-reserve N|P%  keep this much of the GraphQL limit (default 10%)
  --plan FILE|JSON        the plan document (docs/plan.md); bound as plan_digest
  --scope TEXT|JSON       what the work is bound to (default: GITHUB_API_URL, GITHUB_REPOSITORY,
                          GITHUB_WORKFLOW_REF, GITHUB_JOB as in the Action)
  --request TEXT|JSON     the request bound into request_digest (default null)
  --resume-buffer D       added after the reset (default 60s; 90, 90s, 15m, 1h)
  --resume-window D       how long a receipt stays resumable (default 6h, at most 24h in all)
  --resume-jitter D       most deterministic jitter added to resume-after (default 30s; 0s for none)
  --fresh-approval always|never   fresh_approval_required in receipts this run emits (default always)
  --approval granted      this run has fresh approval (resume)
  --ledger-file FILE      the shared deferral-ledger-v1 file: read, updated under a lock
  --rate-state FILE|-     a saved GET /rate_limit answer (body, or gh api -i with headers):
                          decide offline, no network
  --api-url URL           the API base (default GITHUB_API_URL, else https://api.github.com)
  --quiet                 no human verdict on stderr (printed when stderr is a terminal)
  --verdict               the human verdict on stderr even when it is not a terminal
Live mode reads the token from GITHUB_TOKEN or GH_TOKEN and makes exactly one request,
GET /rate_limit (free of primary quota), through HTTPS_PROXY/HTTP_PROXY unless NO_PROXY says not."
    };
}

const GATE_HELP: &str = concat!(
    "Usage: deferral gate [FLAGS]

Reads the rate state once (GET /rate_limit, or --rate-state FILE), checks the planned cost
against what is left above the reserves, and prints one JSON line:
  {\"status\":\"ready\"|\"deferred\"|\"blocked\"|\"error\", \"reason\", \"resumeAfter\", \"resumeBy\", \"rest\",
   \"graphql\", \"plan\", \"bindings\", \"diagnostics\":[{code,message}], \"deferredReceipt\" (when deferred)}
With a durable port also \"deferralId\" and \"cancellationHandlePath\" (retained), \"pool\",
\"admission\" (admitted) and \"poolReason\" (refused).

",
    gate_flags_help!(),
    "

A durable port (deferral-host serve), and a pool:
  --coordinator-url URL   a deferral-host serve durable port: a deferral is sent there to be
                          retained and woken; its bearer token is read from the variable
                          DEFERRAL_COORDINATOR_TOKEN (needs --coordinator-launch)
  --coordinator-launch T  what the host wakes: exec:PROGRAM or workflow-dispatch:OWNER/REPO/WF@REF
  --coordinator-pool NAME the pool (1-64 of A-Za-z0-9._-) whose quota this work shares: before
                          proceeding, the port is asked to admit the plan's cost there
                          (POST /v1/admissions); refused, the gate defers to the pool's reset;
                          a port that cannot be asked stops the gate (coordinator-failed): with
                          a pool, no work proceeds without an admission
  --coordinator-priority N
                          its place in the pool when it defers: a whole number, default 0;
                          the host admits a higher priority first (needs --coordinator-url)
  --coordinator-fairness-key KEY
                          among equal priorities the host takes turns between keys (1-200
                          characters; default: the launch target's OWNER/REPO/WORKFLOW or
                          program). Both are kept by the host beside the receipt, not in it
  --coordinator-commit SHA
                          the commit the deferred work belongs to (a full SHA of the repository
                          GITHUB_REPOSITORY names; needs --coordinator-url): a host run with
                          --commit-status-port keeps the deferral's status there, context
                          deferral/GITHUB_JOB

Exit codes: 0 ready, 2 invalid input, 3 authentication, 4 provider or transport failure,
5 blocked, 6 deferred."
);

const RESUME_HELP: &str = concat!(
    "Usage: deferral resume --receipt FILE|- [--wakeup-handle H] [FLAGS]

The fresh resume preflight, in order: the receipt is valid (else exit 2), due
(not-yet-due / expired), claimed (retained receipts: the raw wake-up handle from
--wakeup-handle or DEFERRAL_WAKEUP_HANDLE must hash to wakeup_digest: claim-unavailable),
bound to the same work (scope, request and plan recomputed from the flags: binding-mismatch),
approved (--approval granted when the receipt requires it: approval-required); then the gate
on fresh rate state. Checks that need no rate state run first: a receipt that cannot resume
costs no request. Prints one JSON line like deferral gate, plus \"ownership\" and, for a
binding mismatch, \"field\"; when still limited, the new receipt is its deferredReceipt.

  --receipt FILE|-        the deferred-receipt-v1 (- reads standard input, as deferral-host's
                          exec launcher passes it)
  --wakeup-handle H       the raw wake-up handle of a retained receipt
",
    gate_flags_help!(),
    "

Exit codes: 0 ready (the work may run), 2 invalid input or receipt, 3 authentication,
4 provider or transport failure, 5 blocked, 6 deferred again."
);

const VALIDATE_HELP: &str = "Usage: deferral validate FILE|-

Checks a deferred-receipt-v1 strictly (exact fields, types, times, window, digests, ownership)
and prints one JSON line:
  valid:    {\"status\":\"valid\",\"receipt\":{...normalised receipt...}}
  invalid:  {\"status\":\"invalid\",\"error\":{\"code\":\"...\",\"path\":\"$....\",\"message\":\"...\"}}
A whole gate result is not a receipt: the message says to take its deferredReceipt.
Exit code: 0 valid, 2 invalid (or unreadable input).";

const DIGEST_HELP: &str =
    "Usage: deferral digest [--kind value|scope|request|plan] (JSON | --file FILE|-)

Prints {\"kind\",\"digest\"}: digest is the lowercase hex SHA-256 of the RFC 8785 (JCS)
canonical form of the input, the same digest receipts carry in their bindings.
  --kind value    the input must be JSON (default)
  --kind scope    JSON if it parses, else the text as a JSON string (like the scope input)
  --kind request  the same rule, for the request input
  --kind plan     a plan document (a JSON object)
Exit code: 0, or 2 when the input does not fit its kind.";

const EXPLAIN_HELP: &str = "Usage: deferral explain FILE|- [--text] [--quiet]

Describes a deferred-receipt-v1 for a person: why the work stopped, when a fresh attempt may
start and until when (UTC and local time), how long until it is due, who owns the wake-up,
and whether fresh approval is required. Prints one JSON line
  {\"status\":\"valid\",\"state\":\"not-yet-due\"|\"due\"|\"expired\",\"reason\",\"explanation\",...}
and the explanation as plain lines on stderr when stderr is a terminal, or with --text;
--quiet turns them off. stdout carries exactly the one JSON line.
Exit code: 0 for a valid receipt (whatever its state), 2 for an invalid one.";

const OBSERVE_HELP: &str = "Usage: deferral observe --ledger-file FILE (--response FILE|- | --status N --header \"name: value\" ... [--body FILE]) [--path PATH]

Records one GitHub response into the shared deferral-ledger-v1 file, under its lock: the
x-ratelimit-* window (within one window remaining only goes down; a later window replaces an
earlier one), every bucket of a GET /rate_limit answer, the server clock offset from date, and
a secondary-limit strike (a hold of at least 60 s or retry-after, doubling on consecutive
strikes). A 401's headers describe the anonymous bucket, not the token's: they are not recorded.
A later deferral gate or the Action with the same ledger file decides with it.
  --response FILE|-   a response as curl -i or gh api -i print it (status line, headers, body)
  --status N          the HTTP status, with --header (repeatable) and optionally --body FILE
  --path PATH         the request's path (/search/code, /graphql, ...): names the bucket when
                      the answer has no x-ratelimit-resource header (default core)
Prints {\"status\":\"recorded\",\"kind\":\"primary-rest\"|\"primary-graphql\"|\"secondary\"|\"unlimited\"|
\"not-rate-limited\",\"resource\",\"remaining\",\"reset\",\"buckets\",\"secondaryHoldUntil\"}.
Exit code: 0 recorded, 2 invalid input.";
