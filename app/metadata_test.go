package app

import (
	"maps"
	"slices"
	"testing"
)

func TestMediaFormatNamesAreTheMediaFormats(t *testing.T) {
	if got, want := slices.Sorted(slices.Values(MediaFormatNames)), slices.Sorted(maps.Keys(MediaFormats)); !slices.Equal(got, want) {
		t.Fatalf("MediaFormatNames %v, MediaFormats %v", got, want)
	}
}
