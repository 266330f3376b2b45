package topology_test

import (
	"fmt"
	"log"

	"github.com/vacheck/vacheck/topology"
)

func Example() {
	g, err := topology.Parse("grid", 5)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(g)
	fmt.Println("diameter:", g.Diameter(), "tree:", g.IsTree())
	// Process 2 (index 1) reaches process 5 (index 4) through its port 2.
	fmt.Println("ports of 2:", g.Adj[1], "port to 5:", g.Port(1, 4))

	_, err = topology.Parse("random:x:5", 5)
	fmt.Println(err)
	// Output:
	// grid N=5: 1-2 1-4 2-3 2-5 4-5
	// diameter: 3 tree: false
	// ports of 2: [0 2 4] port to 5: 2
	// invalid --topology random:x:5: SEED must be a non-negative integer; want random:SEED:EDGES
}
