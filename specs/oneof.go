package specs

import "slices"

// oneOf reads flag, a word that must be one of values, with a sticky error
// (Params.Err): a value outside them fails with Usagef(flag, value, why),
// why saying what is allowed. It records the value as canonical and
// returns it, or "" after an error.
func (p *Params) oneOf(flag, why string, values ...string) string {
	return sticky(p, func() (string, error) {
		v := p.String(flag)
		if !slices.Contains(values, v) {
			return "", Usagef(flag, v, "%s", why)
		}
		p.Set(flag, v)
		return v, nil
	})
}
