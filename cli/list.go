package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	urfave "github.com/urfave/cli/v2"
	"github.com/vacheck/vacheck/specs"
)

// listCommand is `vacheck list [FILTER] [--format text|json]`.
func listCommand(c *urfave.Context, catalog []specs.Spec) error {
	if c.NArg() > 1 {
		return usagef("list takes at most one FILTER, got %d arguments", c.NArg())
	}
	format := c.String("format")
	if format != "text" && format != "json" {
		return usagef("--format %q: allowed values are text and json", format)
	}
	filter := c.Args().First()
	shown := filterSpecs(catalog, filter)
	if len(shown) == 0 {
		return usagef("no spec matches %q (see 'vacheck list' for all %d)", filter, len(catalog))
	}
	if format == "json" {
		return listJSON(c.App.Writer, shown)
	}
	return list(c.App.Writer, shown)
}

// filterSpecs keeps the specs of catalog whose name, summary, bug,
// section or family contains filter, ignoring case; an empty filter keeps
// them all. The catalog's families are its sections' chapters: 1 is
// "leader election", 2 is "mutex" (mutual exclusion).
func filterSpecs(catalog []specs.Spec, filter string) []specs.Spec {
	if filter == "" {
		return catalog
	}
	f := strings.ToLower(filter)
	var out []specs.Spec
	for _, s := range catalog {
		for _, text := range []string{s.Name, s.Summary, s.Bug, s.Section, family(s.Section)} {
			if strings.Contains(strings.ToLower(text), f) {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

// family names the chapter of a catalog section, for list's filter.
func family(section string) string {
	chapter, _, _ := strings.Cut(section, ".")
	switch chapter {
	case "1":
		return "leader election"
	case "2":
		return "mutex, mutual exclusion"
	}
	return ""
}

// defaultChannels returns the channel discipline a spec's model takes
// when --channels is not given, as its Build records it (Params.Channels);
// "" for a model without channels (or one that cannot be built with its
// defaults).
func defaultChannels(s specs.Spec) string {
	p, err := specs.NewParams(s, nil)
	if err != nil {
		return ""
	}
	if _, err := s.Build(p); err != nil {
		return ""
	}
	d, _ := p.Canonical()["channels"].(string)
	return d
}

// list prints every spec of catalog: `vacheck list`.
func list(w io.Writer, catalog []specs.Spec) error {
	width := 0
	for _, s := range catalog {
		width = max(width, len(s.Name))
	}
	indent := strings.Repeat(" ", width+1)
	for _, s := range catalog {
		fmt.Fprintf(w, "%-*s %s\n", width, s.Name, s.Summary)
		if s.Bug != "" {
			fmt.Fprintf(w, "%sbug: %s\n", indent, s.Bug)
		}
		if s.Provisional != "" {
			fmt.Fprintf(w, "%sprovisional: %s\n", indent, s.Provisional)
		}
		var ps []string
		for _, p := range s.Params {
			var notes []string
			if p.Default != "" {
				notes = append(notes, "default "+p.Default)
			}
			if p.Max > 0 {
				notes = append(notes, fmt.Sprintf("at most %d", p.Max))
			}
			if len(notes) == 0 {
				ps = append(ps, "--"+p.Flag)
			} else {
				ps = append(ps, fmt.Sprintf("--%s (%s)", p.Flag, strings.Join(notes, ", ")))
			}
		}
		fmt.Fprintf(w, "%sparameters: %s\n", indent, strings.Join(ps, ", "))
		if d := defaultChannels(s); d != "" {
			fmt.Fprintf(w, "%schannels: %s by default (--channels fifo, unordered or mailbox)\n", indent, d)
		}
		fmt.Fprintf(w, "%sclaims: %s\n", indent, strings.Join(s.Claims, ", "))
		if all, err := s.Offered(); err == nil && len(all) > len(s.Claims) {
			fmt.Fprintf(w, "%salso offers: %s\n", indent, strings.Join(all[len(s.Claims):], ", "))
		}
		if s.Page != "" {
			fmt.Fprintf(w, "%sexplained in: %s\n", indent, s.Page)
		}
	}
	return nil
}

// jsonSpec is one spec in `vacheck list --format json`.
type jsonSpec struct {
	Name        string      `json:"name"`
	Section     string      `json:"section,omitempty"`
	Summary     string      `json:"summary"`
	Bug         string      `json:"bug,omitempty"`
	Provisional string      `json:"provisional,omitempty"`
	Params      []jsonParam `json:"parameters"`
	Channels    string      `json:"channels,omitempty"` // the default discipline; absent without channels
	Claims      []string    `json:"claims"`
	Offers      []string    `json:"also_offers"`
	Symmetry    string      `json:"symmetry,omitempty"`
	Page        string      `json:"page,omitempty"`
}

type jsonParam struct {
	Flag    string `json:"flag"`
	Default string `json:"default,omitempty"`
	Usage   string `json:"usage"`
	Max     int    `json:"max,omitempty"` // the largest value allowed, when the spec says
}

// listJSON writes the specs of catalog as a JSON array.
func listJSON(w io.Writer, catalog []specs.Spec) error {
	out := make([]jsonSpec, 0, len(catalog))
	for _, s := range catalog {
		j := jsonSpec{Name: s.Name, Section: s.Section, Summary: s.Summary, Bug: s.Bug, Provisional: s.Provisional,
			Params: []jsonParam{}, Claims: append([]string{}, s.Claims...), Offers: []string{}, Symmetry: s.Symmetry, Page: s.Page}
		for _, p := range s.Params {
			j.Params = append(j.Params, jsonParam{p.Flag, p.Default, p.Usage, p.Max})
		}
		j.Channels = defaultChannels(s)
		if all, err := s.Offered(); err == nil && len(all) > len(s.Claims) {
			j.Offers = append(j.Offers, all[len(s.Claims):]...)
		}
		out = append(out, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
