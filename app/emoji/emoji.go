package emoji

// IsSingle tells whether s is exactly one emoji: a pictograph with optional variation
// selector and skin tone, such sequences joined by ZWJ, a flag (two regional indicators), a
// keycap, or a tag sequence (subdivision flags).
func IsSingle(s string) bool {
	rs := []rune(s)
	if len(rs) == 0 || len(rs) > 32 {
		return false
	}
	switch {
	case isRegional(rs[0]):
		return len(rs) == 2 && isRegional(rs[1])
	case isKeycapBase(rs[0]):
		return (len(rs) == 2 && rs[1] == 0x20E3) || (len(rs) == 3 && rs[1] == 0xFE0F && rs[2] == 0x20E3)
	}
	i := 0
	for {
		if i >= len(rs) || !isPictographic(rs[i]) {
			return false
		}
		i++
		for i < len(rs) && (rs[i] == 0xFE0F || isSkinTone(rs[i])) {
			i++
		}
		if i < len(rs) && rs[0] == 0x1F3F4 && rs[i] >= 0xE0020 && rs[i] <= 0xE007F {
			for i < len(rs) && rs[i] >= 0xE0020 && rs[i] <= 0xE007E {
				i++
			}
			return i == len(rs)-1 && rs[i] == 0xE007F
		}
		if i == len(rs) {
			return true
		}
		if rs[i] != 0x200D {
			return false
		}
		i++
	}
}

func isRegional(r rune) bool   { return r >= 0x1F1E6 && r <= 0x1F1FF }
func isSkinTone(r rune) bool   { return r >= 0x1F3FB && r <= 0x1F3FF }
func isKeycapBase(r rune) bool { return (r >= '0' && r <= '9') || r == '#' || r == '*' }

// isPictographic covers the Extended_Pictographic blocks emoji are drawn from.
func isPictographic(r rune) bool {
	switch {
	case r == 0x00A9 || r == 0x00AE || r == 0x203C || r == 0x2049 || r == 0x2122 || r == 0x2139:
		return true
	case r >= 0x2194 && r <= 0x21AA, r >= 0x231A && r <= 0x23FF, r >= 0x24C2 && r <= 0x24C2:
		return true
	case r >= 0x25AA && r <= 0x27BF, r >= 0x2934 && r <= 0x2935, r >= 0x2B05 && r <= 0x2B55:
		return true
	case r == 0x3030 || r == 0x303D || r == 0x3297 || r == 0x3299:
		return true
	case r >= 0x1F000 && r <= 0x1FAFF:
		return !isRegional(r) && !isSkinTone(r)
	}
	return false
}
