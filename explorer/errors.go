package explorer

import (
	"errors"
	"fmt"
	"strings"
)

// ErrConfig reports a Config or a property selection the explorer cannot
// run. Check returns it as a *ConfigError.
var ErrConfig = errors.New("explorer: bad configuration")

// ConfigError is a Config that Check refuses, with the field at fault. It
// matches ErrConfig (errors.Is). Its message names the options of the
// Config it speaks of in braces, {Field} or {Field value}: Error words them
// as Config fields, and a command line words them as its flags with Words.
type ConfigError struct {
	// Field is the Config field at fault, as Go spells it ("Workers",
	// "Properties", "Metrics", "Reduction", "Symmetry", ...), or "" when
	// the model itself is.
	Field string
	// Value is the value at fault as text ("0", "por", `"liveliness"`),
	// or "" for a flag such as Symmetry or the field as a whole.
	Value string
	msg   string // with {Field value} for each option it names
	cause error  // the model's own error, when it gave one
}

// configError returns a ConfigError about field with value, whose message
// is format with args, in which {Field value} names an option.
func configError(field, value, format string, args ...any) *ConfigError {
	return &ConfigError{Field: field, Value: value, msg: fmt.Sprintf(format, args...)}
}

// Error implements error, with the options named as Config fields.
func (e *ConfigError) Error() string {
	return ErrConfig.Error() + ": " + e.Words(func(field, value string) string {
		if value == "" {
			return "Config." + field
		}
		return "Config." + field + " " + value
	})
}

// Is reports whether target is ErrConfig.
func (e *ConfigError) Is(target error) bool { return target == ErrConfig }

// Unwrap returns the model's own error, if it gave one.
func (e *ConfigError) Unwrap() error { return e.cause }

// Words returns the message with each option it names worded by name,
// which gets the option's Config field and its value ("" for none).
func (e *ConfigError) Words(name func(field, value string) string) string {
	var b strings.Builder
	rest := e.msg
	for {
		i := strings.IndexByte(rest, '{')
		j := strings.IndexByte(rest[max(i, 0):], '}')
		if i < 0 || j < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:i])
		field, value, _ := strings.Cut(rest[i+1:i+j], " ")
		b.WriteString(name(field, value))
		rest = rest[i+j+1:]
	}
	if e.cause != nil {
		b.WriteString(e.cause.Error())
	}
	return b.String()
}
