package explorer

import "encoding/json"

// Bottom is the value of a variable that is undefined, ⊥, in a state, such
// as a leader not yet known that a process keeps as 0: traces, charts and
// the HTML page print it as ⊥, while its JSON encoding is the value the
// state holds (Raw), so that a program reading the JSON sees the variable's
// own type.
type Bottom struct{ Raw any }

// String returns ⊥.
func (Bottom) String() string { return "⊥" }

// MarshalJSON encodes the value the state holds.
func (b Bottom) MarshalJSON() ([]byte, error) { return json.Marshal(b.Raw) }
