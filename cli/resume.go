package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	urfave "github.com/urfave/cli/v2"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/internal/input"
	"github.com/vacheck/vacheck/report"
	"github.com/vacheck/vacheck/specs"
)

// checkpointFile is the name of the checkpoint in a --checkpoint directory.
const checkpointFile = "checkpoint.vck"

// defaultCheckpointEvery is how often a check with --checkpoint saves it
// when --checkpoint-every is not given.
const defaultCheckpointEvery = 5 * time.Minute

// checkpointFlags are the flags of `check` that save checkpoints.
func checkpointFlags() []urfave.Flag {
	return []urfave.Flag{
		&urfave.StringFlag{Name: "checkpoint", Usage: "save the search's state in this directory every --checkpoint-every and on SIGINT/SIGTERM or --timeout, so that 'vacheck resume DIR' continues it; removed when the run ends with a verdict"},
		&urfave.StringFlag{Name: "checkpoint-every", Usage: "how often to save the checkpoint, e.g. 10m (default 5m)"},
	}
}

// resumeOverrides are the flags `resume` may change from the saved
// command line: they bound or show the run, and do not change its results.
var resumeOverrides = []string{"workers", "timeout", "max-memory", "max-states", "checkpoint-every", "format", "html", "save-trace"}

// outputFlags are the flags of `check` that name a file or directory to
// write. A checkpoint never keeps them in its command line: resume takes
// them from its own (DIR, --html and --save-trace), so that a checkpoint
// file, which anybody may have written, cannot make resume write anywhere
// else. --cert is refused with --checkpoint, and listed here all the same.
var outputFlags = []string{"html", "checkpoint", "save-trace", "cert"}

// flagName returns the name of the flag argument a ("--html=x" gives
// html), and whether its value is in a itself.
func flagName(a string) (name string, inline bool) {
	name, _, inline = strings.Cut(strings.TrimLeft(a, "-"), "=")
	return name, inline
}

// savedCommandLine is the command line of a check as its checkpoint keeps
// it: without the output flags.
func savedCommandLine(args []string) []string {
	var out []string
	for k := 0; k < len(args); k++ {
		a := args[k]
		if a == "--" {
			return append(out, args[k:]...)
		}
		if name, inline := flagName(a); strings.HasPrefix(a, "-") && slices.Contains(outputFlags, name) {
			if !inline {
				k++ // and its value
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// checkSavedCommandLine refuses a command line from a checkpoint that a
// check with --checkpoint does not save: not a check of one spec, or with
// an output flag.
func checkSavedCommandLine(dir string, saved []string) error {
	if len(saved) == 0 || saved[0] != "check" {
		return usagef("%s: the checkpoint holds no check command line", dir)
	}
	flags, positional := splitArgs(saved[1:])
	for _, a := range flags {
		if name, _ := flagName(a); strings.HasPrefix(a, "-") && slices.Contains(outputFlags, name) {
			return usagef("%s: the checkpoint's command line names an output (--%s), which vacheck never saves in a checkpoint: refused; give resume the output instead (vacheck resume DIR --html FILE, --save-trace FILE)", dir, name)
		}
	}
	if len(positional) != 1 {
		return usagef("%s: the checkpoint's command line is not a check of one spec (%d arguments)", dir, len(positional))
	}
	return nil
}

// resumingKey marks the context of a check that resumes its checkpoint.
type resumingKey struct{}

// checkpointConfig reads --checkpoint and --checkpoint-every into the
// explorer's Checkpoint, creating the directory (marked as created by
// vacheck, so that the run that finishes removes it again: tidyCheckpointDir);
// nil without --checkpoint. A new check refuses a directory that holds a
// checkpoint already.
func checkpointConfig(c *urfave.Context, stderr io.Writer, spec specs.Spec, params *specs.Params) (*explorer.Checkpoint, error) {
	dir := c.String("checkpoint")
	if !c.IsSet("checkpoint") {
		if c.IsSet("checkpoint-every") {
			return nil, usagef("--checkpoint-every needs --checkpoint DIR")
		}
		return nil, nil
	}
	if strings.TrimSpace(dir) == "" {
		return nil, usagef("--checkpoint %q: allowed: a directory (created if missing)", dir)
	}
	every := defaultCheckpointEvery
	if s := c.String("checkpoint-every"); c.IsSet("checkpoint-every") {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil || d <= 0 {
			return nil, usagef("--checkpoint-every %q: allowed: a positive duration such as 200ms, 30s, 5m or 1h", input.Clip(s))
		}
		every = d
	}
	_, err := os.Stat(dir)
	created := errors.Is(err, fs.ErrNotExist)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, usagef("--checkpoint %q: %v", dir, err)
	}
	if created {
		if err := os.WriteFile(filepath.Join(dir, createdMark), nil, 0o644); err != nil {
			os.Remove(dir)
			return nil, usagef("--checkpoint %q: %v", dir, err)
		}
	}
	file := filepath.Join(dir, checkpointFile)
	resuming, _ := c.Context.Value(resumingKey{}).(bool)
	if _, err := os.Stat(file); err == nil && !resuming {
		return nil, usagef("--checkpoint %q: the directory holds a checkpoint already; continue it with 'vacheck resume %s', or remove %s", dir, dir, file)
	}
	args, _ := c.Context.Value(checkArgsKey{}).([]string)
	meta, err := json.Marshal(savedCommandLine(args))
	if err != nil {
		tidyCheckpointDir(dir)
		return nil, err
	}
	model, err := json.Marshal(params.Canonical())
	if err != nil {
		tidyCheckpointDir(dir)
		return nil, err
	}
	quiet := c.Bool("quiet")
	return &explorer.Checkpoint{
		File: file, Every: every, Resume: resuming, Build: explorer.BuildID(),
		Model: spec.Name + " " + string(model), Meta: meta,
		Saved: func(s explorer.CheckpointSaved) {
			switch {
			case s.Err != nil:
				fmt.Fprintf(stderr, "vacheck: warning: %v (the search goes on)\n", s.Err)
			case !quiet:
				fmt.Fprintf(stderr, "vacheck: checkpoint saved in %s: %s states, depth %d, %s in %.1fs\n",
					dir, report.Group(s.States), s.Depth, report.FormatBytes(uint64(s.Bytes)), s.Took.Seconds())
			}
		},
	}, nil
}

// checkArgsKey holds the command line of a check (after the program
// name), which the checkpoint stores for resume.
type checkArgsKey struct{}

// createdMark is the file that marks a checkpoint directory vacheck
// created, so that the run that finishes (a resumed one too) removes it.
const createdMark = ".created-by-vacheck"

// tidyCheckpointDir removes dir if vacheck created it (createdMark) and
// nothing else is in it.
func tidyCheckpointDir(dir string) {
	mark := filepath.Join(dir, createdMark)
	if _, err := os.Stat(mark); err != nil {
		return
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) == 1 {
		os.Remove(mark)
		os.Remove(dir)
	}
}

// abandonCheckpoint tidies the checkpoint directory of a run that did not
// start (a bad configuration the explorer refused).
func abandonCheckpoint(ck *explorer.Checkpoint) {
	if ck != nil {
		tidyCheckpointDir(filepath.Dir(ck.File))
	}
}

// finishCheckpoint removes the checkpoint of a run that ended with a
// verdict (or failed), with its directory if vacheck created it and nothing
// else is in it, and tells how to continue one that ended incomplete.
func finishCheckpoint(ck *explorer.Checkpoint, res *explorer.Result, stderr io.Writer) {
	if ck == nil {
		return
	}
	dir := filepath.Dir(ck.File)
	_, err := os.Stat(ck.File)
	// A run stopped after a violation (with --continue, or in the liveness
	// phase) has properties left to decide: like an incomplete one, it can
	// go on.
	stopped := res.Status == explorer.Incomplete || res.Status == explorer.Violated && res.Reason != ""
	switch {
	case !stopped:
		if err == nil {
			if err := os.Remove(ck.File); err != nil {
				fmt.Fprintf(stderr, "vacheck: warning: removing the finished checkpoint: %v\n", err)
			}
		}
		tidyCheckpointDir(dir)
	case err == nil:
		fmt.Fprintf(stderr, "vacheck: the checkpoint in %s is kept: continue with 'vacheck resume %s'\n", dir, dir)
	default:
		fmt.Fprintf(stderr, "vacheck: no checkpoint was saved in %s before the run stopped\n", dir)
		tidyCheckpointDir(dir)
	}
}

// resumeCommand is `vacheck resume DIR`: it runs again the check saved in
// DIR's checkpoint, continuing from it.
func resumeCommand(stdout, stderr io.Writer, code *int, catalog []specs.Spec) *urfave.Command {
	var flags []urfave.Flag
	for _, f := range engineFlags() {
		for _, name := range resumeOverrides {
			if f.Names()[0] == name {
				flags = append(flags, f)
			}
		}
		if f.Names()[0] == "quiet" {
			flags = append(flags, f)
		}
	}
	flags = append(flags, checkpointFlags()[1:]...) // --checkpoint-every
	for _, f := range flags {
		// A flag left out keeps the value of the saved command line.
		if sf, ok := f.(*urfave.StringFlag); ok {
			sf.Value = ""
		}
	}
	return &urfave.Command{
		Name:      "resume",
		Usage:     "continue the check saved by --checkpoint DIR, with the same results as if it had never stopped",
		ArgsUsage: "DIR",
		Flags:     flags,
		Action: func(c *urfave.Context) error {
			if c.NArg() != 1 {
				return usagef("resume takes one DIR (the --checkpoint directory of a check), got %d arguments", c.NArg())
			}
			dir := c.Args().First()
			// Its header only: the check verifies the whole file, under
			// the run's limits, before it uses any of it.
			info, err := explorer.PeekCheckpoint(filepath.Join(dir, checkpointFile))
			if err != nil {
				return usageError{err}
			}
			if build := explorer.BuildID(); info.Build != build {
				return usagef("%s: the checkpoint was written by another build of vacheck (%s; this is %s); resume it with that build", dir, input.Clip(info.Build), build)
			}
			var saved []string
			if err := json.Unmarshal(info.Meta, &saved); err != nil {
				return usagef("%s: the checkpoint holds no check command line", dir)
			}
			if err := checkSavedCommandLine(dir, saved); err != nil {
				return err
			}
			args := append([]string{c.App.Name}, saved...)
			for _, name := range append(resumeOverrides, "quiet") {
				if c.IsSet(name) {
					if name == "quiet" {
						args = append(args, "--quiet")
					} else {
						args = append(args, "--"+name, c.String(name))
					}
				}
			}
			args = append(args, "--checkpoint", dir)
			if !c.Bool("quiet") {
				fmt.Fprintf(stderr, "vacheck: resuming %s at %s, depth %d, after %s already spent: %s %s\n",
					info.Model, report.Count(info.States, "state"), info.Depth, roundElapsed(info.Elapsed), c.App.Name, strings.Join(saved, " "))
			}
			ctx := context.WithValue(c.Context, resumingKey{}, true)
			*code = runContext(ctx, args, stdout, stderr, catalog)
			return nil
		},
	}
}

// roundElapsed rounds the time a run took for a message: to the second,
// to the millisecond below a second (never "0s" for a run that took some).
func roundElapsed(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Second)
}
