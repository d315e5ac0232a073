// Package ids makes the API's ids (a type prefix, 6 base62 digits of the second, 14 random)
// and random base62 text; app names them NewID and RandomBase62.
package ids
