package quorum_test

import (
	"fmt"

	"github.com/vacheck/vacheck/quorum"
)

// Example parses the --quorums flag for Maekawa's algorithm with N=7, checks
// what the algorithm needs and prints the docs/algorithms/maekawa.md
// properties.
func Example() {
	s, err := quorum.Parse("fpp", 7)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := s.Validate(true); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s)
	fmt.Println(quorum.Analyze(s))

	_, err = quorum.Parse("fpp", 5)
	fmt.Println(err)
	// Output:
	// S_1={1,2,4} S_2={2,3,5} S_3={3,4,6} S_4={4,5,7} S_5={1,5,6} S_6={2,6,7} S_7={1,3,7}
	// N=7 quorums=7 size=3 intersecting=yes coterie=yes symmetric=yes (K=3, D=3) non-dominated=yes ideal=yes self=yes
	// --quorums fpp: no finite projective plane has N=5 processes (N must be q²+q+1 for a prime power q, or 3: 3, 7, 13, 21, 31, 57, 73, 91, ...)
}
