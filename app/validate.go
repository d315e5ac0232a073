package app

import "strconv"

func itoa(n int) string { return strconv.Itoa(n) }

// CharCount counts Unicode characters, the unit of every length bound of the API.
func CharCount(s string) int { return len([]rune(s)) }
