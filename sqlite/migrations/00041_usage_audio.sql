-- +goose Up
-- Voice: seconds transcribed and characters spoken, counted in the usage ledger beside the
-- tokens (app/hearing.go) and priced by models.prices' audio_minute and
-- speech_million_characters.
ALTER TABLE usage_ledger ADD COLUMN audio_seconds REAL NOT NULL DEFAULT 0;
ALTER TABLE usage_ledger ADD COLUMN speech_characters REAL NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE usage_ledger DROP COLUMN speech_characters;
ALTER TABLE usage_ledger DROP COLUMN audio_seconds;
