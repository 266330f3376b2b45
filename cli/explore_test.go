package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vacheck/vacheck/specs"
)

// explorer runs `vacheck explore args...` until the test ends (or stop is
// called) and returns the URL it printed first, and stop, which cancels
// it as Ctrl-C does and returns its exit code and stderr.
func startExplore(t *testing.T, args ...string) (url string, stop func() (int, string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var errb strings.Builder
	var mu sync.Mutex
	done := make(chan int, 1)
	go func() {
		code := runContext(noProgress(ctx), append([]string{"vacheck", "explore"}, args...), pw, lockedWriter{&mu, &errb}, specs.Catalog())
		pw.Close()
		done <- code
	}()
	first := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(pr).ReadString('\n')
		first <- strings.TrimSpace(line)
		io.Copy(io.Discard, pr)
	}()
	var once sync.Once
	code := -1
	stop = func() (int, string) {
		once.Do(func() {
			cancel()
			select {
			case code = <-done:
			case <-time.After(20 * time.Second):
				t.Error("explore did not stop within 20 s of the cancel")
			}
		})
		mu.Lock()
		defer mu.Unlock()
		return code, errb.String()
	}
	t.Cleanup(func() { stop() })
	select {
	case url = <-first:
	case code := <-done:
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("explore ended with exit %d before printing its URL: %s", code, errb.String())
	case <-time.After(30 * time.Second):
		t.Fatal("explore printed no URL within 30 s")
	}
	return url, stop
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func getJSON(t *testing.T, url string, out any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	return resp.StatusCode
}

// TestExploreServesAndStops: explore prints its URL (loopback, a free
// port) as the first line, serves the API for the spec and its twin, and
// stops cleanly with exit 0 when interrupted.
func TestExploreServesAndStops(t *testing.T) {
	t.Parallel()
	url, stop := startExplore(t, "chang-roberts", "--n", "3")
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/") {
		t.Fatalf("first line %q, want http://127.0.0.1:PORT/", url)
	}
	var info struct {
		Spec   string
		Params string
		Models []struct{ Spec string }
	}
	if code := getJSON(t, url+"api/model", &info); code != 200 || info.Spec != "chang-roberts" || len(info.Models) != 2 || info.Models[1].Spec != "chang-roberts-broken" || !strings.Contains(info.Params, "--n 3") {
		t.Errorf("model: %d %+v", code, info)
	}
	var view struct{ Labels []string }
	if code := getJSON(t, url+"api/state?path=0", &view); code != 200 || len(view.Labels) != 1 || view.Labels[0] != "send(1)_{1,2}" {
		t.Errorf("state: %d %+v", code, view)
	}
	code, stderr := stop()
	if code != exitOK || !strings.Contains(stderr, "explorer stopped") {
		t.Errorf("stopped: exit %d, stderr %s", code, stderr)
	}
	if _, err := http.Get(url + "api/model"); err == nil {
		t.Error("still serving after the stop")
	}
}

// TestExploreTrace: --trace offers the counterexample of check --format
// json, of the spec's twin too.
func TestExploreTrace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, out, stderr := vacheck("check", "chang-roberts-broken", "--n", "3", "--format", "json")
	if code != exitViolated {
		t.Fatalf("check: exit %d: %s", code, stderr)
	}
	file := filepath.Join(dir, "cx.json")
	if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	url, _ := startExplore(t, "chang-roberts", "--n", "3", "--trace", file)
	var ref struct {
		Spec     string
		Init     int
		Path     []int
		Property string
	}
	if code := getJSON(t, url+"api/trace", &ref); code != 200 || ref.Spec != "chang-roberts-broken" || ref.Property != "uniqueness" || len(ref.Path) == 0 {
		t.Errorf("the --trace: %d %+v", code, ref)
	}
}

// TestExploreBadUsage: bad flags and a --trace that does not fit end with
// exit 2 and a message naming the flag, before anything is served.
func TestExploreBadUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, out, _ := vacheck("check", "chang-roberts-broken", "--n", "4", "--format", "json")
	n4 := filepath.Join(dir, "n4.json")
	os.WriteFile(n4, []byte(out), 0o644)
	junk := filepath.Join(dir, "junk.json")
	os.WriteFile(junk, []byte("<html>"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"explore"}, "explore takes one SPEC"},
		{[]string{"explore", "chang-robertz"}, `unknown spec "chang-robertz"`},
		{[]string{"explore", "chang-roberts", "--n", "99"}, "--n 99"},
		{[]string{"explore", "chang-roberts", "--listen", "nonsense:x:y"}, `--listen "nonsense:x:y"`},
		{[]string{"explore", "chang-roberts", "--graph-states", "0"}, `--graph-states "0": a whole number from 1 to 5000`},
		{[]string{"explore", "chang-roberts", "--timeout", "soon"}, "--timeout"},
		{[]string{"explore", "chang-roberts", "--trace", filepath.Join(dir, "missing.json")}, "--trace " + filepath.Join(dir, "missing.json")},
		{[]string{"explore", "chang-roberts", "--trace", dir}, "not a regular file"},
		{[]string{"explore", "chang-roberts", "--trace", junk}, "--trace: not the JSON of 'vacheck check --format json'"},
		{[]string{"explore", "chang-roberts", "--n", "3", "--trace", n4}, "--trace: the trace is of chang-roberts-broken --capacity 4 --channels fifo --ids all --n 4 --objective max; this explorer serves chang-roberts"},
	} {
		code, stdout, stderr := vacheck(c.args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, stdout, stderr, c.want)
		}
	}
}
