package simulate

import "github.com/vacheck/vacheck/internal/hll"

// SketchError is the relative standard error of a Sketch's estimate,
// about 0.8%; twice it, the bound reports print as "±2%", holds for about
// 95% of estimates.
var SketchError = hll.Error

// Sketch estimates how many distinct 64-bit hashes it was given in a fixed
// 16 KiB: a HyperLogLog sketch read with Ertl's improved estimator, which
// is unbiased from a handful of hashes to billions (internal/hll). Merging
// sketches takes the largest of each register, so a merged sketch does not
// depend on which worker saw which hash, nor on the order. The swarm's
// union of states (explorer.Swarm) is estimated by the same sketch.
type Sketch = hll.Sketch
