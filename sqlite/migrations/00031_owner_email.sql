-- +goose Up
-- The owner made on a fresh install was "owner@localhost", an address the API's email rule
-- (app.EmailPattern, the pattern of `format: email` in openapi.json) refuses, so every
-- member list of such an install broke the document. The placeholder becomes
-- "owner@example.invalid" (RFC 2606's reserved name for an address that is not one);
-- an owner whose organization already holds that address keeps the old one.
UPDATE members SET email = 'owner@example.invalid'
WHERE email = 'owner@localhost'
  AND NOT EXISTS (SELECT 1 FROM members m WHERE m.org_id = members.org_id AND m.email = 'owner@example.invalid');

-- +goose Down
UPDATE members SET email = 'owner@localhost'
WHERE email = 'owner@example.invalid'
  AND NOT EXISTS (SELECT 1 FROM members m WHERE m.org_id = members.org_id AND m.email = 'owner@localhost');
