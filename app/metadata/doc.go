// Package metadata answers the API's value sets (chat states, memory types, connection
// types, the integrations this server can deploy...) labelled in the asked language, for
// building user interfaces; an unknown language falls back to English.
package metadata
