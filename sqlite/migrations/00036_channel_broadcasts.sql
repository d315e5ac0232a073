-- +goose Up
-- Broadcasts on messaging apps (Telegram, WhatsApp) go out through one assistant integration
-- of that type (asi_id); a WhatsApp broadcast is an approved template (JSON {name, language,
-- components}), the only message WhatsApp delivers outside the 24-hour window.
ALTER TABLE broadcasts ADD COLUMN asi_id TEXT;
ALTER TABLE broadcasts ADD COLUMN template TEXT;

-- +goose Down
ALTER TABLE broadcasts DROP COLUMN template;
ALTER TABLE broadcasts DROP COLUMN asi_id;
