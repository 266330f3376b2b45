package report

import (
	"fmt"

	"github.com/vacheck/vacheck/explorer"
)

// BitstateLine describes the bitstate table of a search (check
// --bitstate, each job of a swarm): its size and hash functions, its fill,
// Holzmann's hash factor, and the omissions estimated.
func BitstateLine(b *explorer.BitstateStats) string {
	return fmt.Sprintf("bitstate table %s, %d hash functions: %.2g%% of its bits set, hash factor %s; expected omitted states %.3g (probability of any %.2g), not counting the states reachable only through them",
		FormatBytes(b.Bytes), b.Hashes, 100*b.Fill, hashFactor(b.HashFactor), b.ExpectedOmitted, b.OmissionProbability)
}

// JSONBitstate is the JSON of a bitstate table's figures.
type JSONBitstate struct {
	Bytes               uint64  `json:"bytes"`
	Hashes              int     `json:"hashes"`
	Seed                uint64  `json:"seed"`
	States              int64   `json:"states"`
	BitsSet             uint64  `json:"bits_set"`
	Fill                float64 `json:"fill"`
	HashFactor          float64 `json:"hash_factor"`
	ExpectedOmitted     float64 `json:"expected_omitted"`
	OmissionProbability float64 `json:"omission_probability"`
}

// BitstateJSON returns the JSON form of b, or nil for nil.
func BitstateJSON(b *explorer.BitstateStats) *JSONBitstate {
	if b == nil {
		return nil
	}
	return &JSONBitstate{
		Bytes: b.Bytes, Hashes: b.Hashes, Seed: b.Seed, States: b.States, BitsSet: b.BitsSet, Fill: b.Fill,
		HashFactor: b.HashFactor, ExpectedOmitted: b.ExpectedOmitted, OmissionProbability: b.OmissionProbability,
	}
}

// hashFactor formats a hash factor: a whole number from 10 up (2,831), two
// digits below (2.3).
func hashFactor(f float64) string {
	if f >= 10 {
		return Group(int64(f + 0.5))
	}
	return fmt.Sprintf("%.2g", f)
}
