package app

import "wsapi/app/emoji"

// IsSingleEmoji tells whether s is exactly one emoji (app/emoji), the rule of a reaction.
func IsSingleEmoji(s string) bool { return emoji.IsSingle(s) }
