package automaton

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
)

// Fielder is an optional interface of a message type (or of any value in
// a state) whose String hides its fields, such as REQUEST(3,1) for a
// struct with a kind, a timestamp and a sender. Expressions (package
// props: --invariant and the other flags) then read such a message as a
// record of the fields Fields gives, plus text, its printed form, instead
// of as the string alone: chans[0].msgs[0].type == "REQUEST", .ts, and
// .text == "REQUEST(3,1)".
//
// Fields returns the message's fields by name, each an int, a string or a
// bool (or a list of them). It must give the same names for every value of
// the type: the names are read once from the zero value, when properties
// are compiled, to check the names an expression uses.
type Fielder interface {
	Fields() map[string]any
}

// fielderNames returns the field names a Fielder of type t gives (with
// text), sorted, or nil if t is not a Fielder.
func fielderNames(t reflect.Type) []string {
	if !t.Implements(reflect.TypeFor[Fielder]()) {
		return nil
	}
	zero := reflect.Zero(t).Interface().(Fielder)
	var names []string
	for k := range zero.Fields() {
		names = append(names, k)
	}
	if !slices.Contains(names, "text") {
		names = append(names, "text")
	}
	sort.Strings(names)
	return names
}

// fielderValue is the value expressions read for f, a Fielder: its fields
// with its printed form as text.
func fielderValue(f Fielder) map[string]any {
	m := f.Fields()
	if _, ok := m["text"]; !ok {
		m["text"] = fmt.Sprint(f)
	}
	return m
}
