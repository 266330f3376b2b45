package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	urfave "github.com/urfave/cli/v2"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/specs"
	"github.com/vacheck/vacheck/web"
)

// maxTraceFile bounds the --trace file of explore.
const maxTraceFile = 64 << 20

// exploreCommand is `vacheck explore SPEC [parameters] [--listen ADDR]
// [--trace FILE] [--open]`: the interactive explorer in the browser.
func exploreCommand(stdout, stderr io.Writer, code *int, catalog []specs.Spec) *urfave.Command {
	flags := []urfave.Flag{
		&urfave.StringFlag{Name: "listen", Value: "127.0.0.1:0", Usage: "the address to serve on (port 0: any free port); an address other than loopback makes the explorer reachable from other machines"},
		&urfave.StringFlag{Name: "trace", Usage: "a counterexample to offer, in the JSON of 'vacheck check --format json' (`FILE`)"},
		&urfave.BoolFlag{Name: "open", Usage: "open the page in the desktop's browser (xdg-open)"},
		&urfave.StringFlag{Name: "graph-states", Value: "300", Usage: fmt.Sprintf("the largest state graph the page draws (at most %d)", graphMaxStates)},
		&urfave.StringFlag{Name: "timeout", Value: "1m", Usage: "how long \"run to a violation\" may check"},
		&urfave.StringFlag{Name: "max-states", Value: "0", Usage: "stop \"run to a violation\" after this many distinct states (0: no limit)"},
		&urfave.StringFlag{Name: "workers", Value: strconv.Itoa(runtime.GOMAXPROCS(0)), Usage: "parallel workers of \"run to a violation\""},
	}
	flags = append(flags, hiddenSpecFlags(catalog)...)
	return &urfave.Command{
		Name:      "explore",
		Usage:     "step through SPEC in the browser, choosing every transition yourself",
		ArgsUsage: "SPEC [parameters]",
		Description: "Starts a local web server and prints its URL as the first line of standard output; Ctrl-C\n" +
			"stops it. The page shows the state of every process and channel, each property's truth, the\n" +
			"enabled transitions as buttons, the history and its message sequence chart; the URL holds the\n" +
			"path. The JSON API under /api/ is documented in docs/explore.md. Exit code: 0 stopped; 2 bad usage.\n" + specParamsHelp("check"),
		Flags: flags,
		Action: func(c *urfave.Context) error {
			var err error
			*code, err = explore(c, stdout, stderr, catalog)
			return err
		},
	}
}

func explore(c *urfave.Context, stdout, stderr io.Writer, catalog []specs.Spec) (int, error) {
	spec, params, err := specModel(c, "explore", catalog)
	if err != nil {
		return exitUsage, err
	}
	var cfg web.Config
	if cfg.GraphStates, err = strconv.Atoi(c.String("graph-states")); err != nil || cfg.GraphStates < 1 || cfg.GraphStates > graphMaxStates {
		return exitUsage, usagef("--graph-states %q: a whole number from 1 to %d", c.String("graph-states"), graphMaxStates)
	}
	var limits explorer.Config
	if err := engineLimits(c, &limits); err != nil {
		return exitUsage, err
	}
	if limits.Timeout == 0 {
		return exitUsage, usagef("--timeout %q: \"run to a violation\" needs a time limit, e.g. 1m", c.String("timeout"))
	}
	cfg.CheckTimeout = limits.Timeout
	cfg.Check = func(ctx context.Context, m web.Model) (*explorer.Result, error) {
		return explorer.Check(m.Model, explorer.Config{Properties: m.Claims, Workers: limits.Workers, MaxStates: limits.MaxStates, MaxMemory: limits.MaxMemory, Context: ctx})
	}
	if file := c.String("trace"); c.IsSet("trace") {
		if cfg.Trace, err = readTrace(file); err != nil {
			return exitUsage, err
		}
	}
	// The spec, then its broken twin (or, for a twin, the spec it breaks),
	// with the same parameters, when it takes them.
	type pick struct {
		spec   specs.Spec
		params *specs.Params
	}
	picks := []pick{{spec, params}}
	other := spec.Name + "-broken"
	if base, ok := strings.CutSuffix(spec.Name, "-broken"); ok {
		other = base
	}
	if o, err := specs.Find(catalog, other); err == nil {
		if op, err := specs.NewParams(o, givenFlags(c, catalog)); err == nil {
			picks = append(picks, pick{o, op})
		}
	}
	for i, p := range picks {
		m, err := p.spec.Model(p.params)
		if err != nil {
			if i == 0 {
				return exitUsage, err
			}
			continue
		}
		canon := p.params.Canonical() // complete once Build has read them
		cfg.Models = append(cfg.Models, web.Model{Spec: p.spec.Name, Params: canon, Bug: p.spec.Bug, Claims: p.spec.Claims,
			Unordered: canon["channels"] == "unordered", Mailbox: canon["channels"] == "mailbox", Model: m})
	}
	ln, err := net.Listen("tcp", c.String("listen"))
	if err != nil {
		return exitUsage, usagef("--listen %q: %v (an address such as 127.0.0.1:8080, or port 0 for any free port)", c.String("listen"), err)
	}
	defer ln.Close()
	addr := ln.Addr().(*net.TCPAddr)
	if addr.IP.IsLoopback() {
		cfg.AllowedHosts = []string{"localhost", "127.0.0.1", "::1", addr.IP.String()}
	} else {
		fmt.Fprintf(stderr, "vacheck: warning: serving on %s, not loopback: whoever can reach it can use the explorer\n", addr)
	}
	srv, err := web.New(cfg)
	if err != nil {
		if strings.HasPrefix(err.Error(), "--trace") {
			return exitUsage, usageError{err}
		}
		return exitModel, err
	}
	defer srv.Close()
	url := "http://" + addr.String() + "/"
	if addr.IP.IsUnspecified() {
		url = fmt.Sprintf("http://127.0.0.1:%d/", addr.Port)
	}
	fmt.Fprintln(stdout, url)
	if f, ok := stdout.(interface{ Sync() error }); ok {
		f.Sync()
	}
	fmt.Fprintf(stderr, "vacheck: exploring %s %s at %s (Ctrl-C stops)\n", spec.Name, cfg.Models[0].ParamLine(), url)
	if c.Bool("open") {
		openBrowser(url, stderr)
	}
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		WriteTimeout: cfg.CheckTimeout + time.Minute, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 512 << 10}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return exitModel, fmt.Errorf("explore: the server stopped: %w", err)
	case <-ctx.Done():
	}
	srv.Close() // stops a running check
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shut); err != nil {
		hs.Close()
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return exitModel, err
	}
	fmt.Fprintln(stderr, "vacheck: explorer stopped")
	return exitOK, nil
}

// givenFlags are the spec flags given on the command line.
func givenFlags(c *urfave.Context, catalog []specs.Spec) map[string]string {
	given := map[string]string{}
	for _, f := range specFlags(catalog) {
		if name := f.Names()[0]; c.IsSet(name) {
			given[name] = c.String(name)
		}
	}
	return given
}

// readTrace reads the --trace file, the only file explore reads.
func readTrace(file string) ([]byte, error) {
	if file == "" {
		return nil, usagef("--trace: the file name is empty")
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, usagef("--trace %s: %v", file, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, usagef("--trace %s: not a regular file", file)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxTraceFile+1))
	if err != nil {
		return nil, usagef("--trace %s: %v", file, err)
	}
	if len(data) > maxTraceFile {
		return nil, usagef("--trace %s: larger than %d MiB", file, maxTraceFile>>20)
	}
	return data, nil
}

// openBrowser asks the desktop to open url, saying so when it cannot.
func openBrowser(url string, stderr io.Writer) {
	opener := "xdg-open"
	if runtime.GOOS == "darwin" {
		opener = "open"
	}
	if err := exec.Command(opener, url).Start(); err != nil {
		fmt.Fprintf(stderr, "vacheck: --open: %v; open %s yourself\n", err, url)
	}
}
