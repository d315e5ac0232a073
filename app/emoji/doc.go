// Package emoji tells whether a text is exactly one emoji (a pictograph with its variation
// selector and skin tone, ZWJ sequences, flags, keycaps, tag sequences): the rule of a
// reaction on a chat message.
package emoji
