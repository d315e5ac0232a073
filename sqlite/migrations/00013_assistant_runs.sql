-- +goose Up
-- Assistant runs (app/runs.go). A row is a run that is due (message_id NULL: waiting out the
-- debounce until due_at) or under way (message_id set: the assistant's RUNNING message,
-- owned by one runner until lease_until). stop records why a run under way must end early
-- (canceled, superseded, taken, ai_disabled), so the runner's final write and a stop
-- that commits first never both win. Rows go when the run ends.
CREATE TABLE assistant_runs (
    id          TEXT PRIMARY KEY,
    org_id      TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    chat_id     TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    due_at      TEXT NOT NULL,
    message_id  TEXT,
    owner       TEXT NOT NULL DEFAULT '',
    lease_until TEXT,
    stop        TEXT,
    created_at  TEXT NOT NULL
);
-- At most one waiting run per chat: a burst of contact messages moves its due_at.
CREATE UNIQUE INDEX assistant_runs_waiting ON assistant_runs(chat_id) WHERE message_id IS NULL;
CREATE INDEX assistant_runs_due ON assistant_runs(due_at) WHERE message_id IS NULL;
CREATE INDEX assistant_runs_under_way ON assistant_runs(chat_id) WHERE message_id IS NOT NULL;

-- The usage ledger: one row per model call of a run, for GET /orgs/{org}/usage and the
-- balance. Kept when the chat goes (no foreign key to chats): spending does not vanish.
CREATE TABLE usage_ledger (
    seq                      INTEGER PRIMARY KEY,
    org_id                   TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    day                      TEXT NOT NULL,         -- YYYY-MM-DD, UTC
    model                    TEXT NOT NULL,
    assistant_id             TEXT NOT NULL DEFAULT '',
    chat_id                  TEXT NOT NULL,
    message_id               TEXT NOT NULL,
    input_tokens             REAL NOT NULL,
    output_tokens            REAL NOT NULL,
    total_tokens             REAL NOT NULL,
    reasoning_tokens         REAL NOT NULL,
    input_tokens_cache_read  REAL NOT NULL,
    input_tokens_cache_write REAL NOT NULL,
    cost                     REAL NOT NULL,
    estimated                INTEGER NOT NULL DEFAULT 0,
    created_at               TEXT NOT NULL
);
CREATE INDEX usage_ledger_by_day ON usage_ledger(org_id, day, model);
CREATE INDEX usage_ledger_by_assistant ON usage_ledger(org_id, assistant_id, day, model);

-- +goose Down
DROP TABLE usage_ledger;
DROP TABLE assistant_runs;
