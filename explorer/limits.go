package explorer

import (
	"context"
	"fmt"
	"runtime/metrics"
	"time"

	"github.com/dolthub/swiss"
	"github.com/vacheck/vacheck/internal/offheap"
)

// memSamples are the runtime metrics sampleMemory reads.
var memSamples = []metrics.Sample{
	{Name: "/memory/classes/total:bytes"},
	{Name: "/memory/classes/heap/released:bytes"},
}

// memSampleBytes is how many bytes of new successors a search buffers
// before it samples the memory again.
const memSampleBytes = 4 << 20

func (s *search) monitor(done <-chan struct{}) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	lastProgress := time.Now()
	var ctxDone <-chan struct{}
	if s.cfg.Context != nil {
		ctxDone = s.cfg.Context.Done()
	}
	for {
		select {
		case <-done:
			return
		case <-ctxDone:
			s.stop.CompareAndSwap(running, stopContext)
			ctxDone = nil
		case now := <-tick.C:
			mem := s.sampleMemory()
			if s.cfg.Timeout > 0 {
				// With a checkpoint, the timeout leaves room for the save
				// that follows the stop.
				room := s.saveRoom()
				if now.Sub(s.start) >= s.cfg.Timeout-room && s.stop.CompareAndSwap(running, stopTimeout) {
					s.save.room.Store(int64(room))
				}
			}
			if s.cfg.MaxMemory > 0 && mem >= s.cfg.MaxMemory {
				s.stop.CompareAndSwap(running, stopMemory)
			}
			if s.cfg.Progress != nil && now.Sub(lastProgress) >= s.cfg.ProgressEvery {
				lastProgress = now
				p := Progress{
					Strategy: s.cfg.Strategy, Phase: Phase(s.phase.Load()),
					States: s.states.Load(), Transitions: s.transitions.Load(),
					Depth: int(s.depth.Load()), Queue: s.queue.Load(), Expanded: s.expanded.Load(),
					Elapsed: now.Sub(s.start), Memory: mem, MaxDepth: s.cfg.MaxDepth,
				}
				p.Explored = p.States
				if s.cfg.Strategy == BFS {
					p.Explored = s.explored.Load() + p.Expanded
				}
				s.cfg.Progress(p)
			}
		}
	}
}

// sampleMemory reads the memory the Go runtime holds from the operating
// system (less what it has released), adds the large arrays kept outside
// the Go heap (package offheap), and keeps the peak.
func (s *search) sampleMemory() uint64 {
	samples := make([]metrics.Sample, len(memSamples))
	copy(samples, memSamples)
	metrics.Read(samples)
	var mem uint64
	if samples[0].Value.Kind() == metrics.KindUint64 {
		mem = samples[0].Value.Uint64()
		if samples[1].Value.Kind() == metrics.KindUint64 {
			mem -= samples[1].Value.Uint64()
		}
	}
	mem += offheap.Mapped()
	for {
		p := s.peak.Load()
		if mem <= p || s.peak.CompareAndSwap(p, mem) {
			return mem
		}
	}
}

// overMemory samples the memory now and stops the search when it has
// reached MaxMemory. The monitor samples every 50 ms, but on a loaded
// machine its goroutine may wait for a core while the search allocates;
// the search loops call this every few thousand states as well.
func (s *search) overMemory() bool {
	if s.cfg.MaxMemory == 0 || s.sampleMemory() < s.cfg.MaxMemory {
		return false
	}
	s.stop.CompareAndSwap(running, stopMemory)
	return true
}

// roomToGrow reports whether the swiss map m may take one more entry. A
// full swiss map doubles its table on the next insertion, one allocation of several gigabytes for a large search that the memory
// monitor could only see afterwards; so when the table is full and the
// doubled table would not fit under MaxMemory, the search stops here as
// incomplete instead.
func roomToGrow[V any](s *search, m *swiss.Map[uint64, V], slot uintptr) bool {
	if s.cfg.MaxMemory == 0 || m.Capacity() > 0 {
		return true
	}
	// The table holds Count/(7/8) slots at most; the new one twice that,
	// with a control byte per slot.
	grown := uint64(float64(m.Count()) / 0.875 * 2 * float64(slot+1))
	if s.sampleMemory()+grown <= s.cfg.MaxMemory {
		return true
	}
	s.stop.CompareAndSwap(running, stopMemory)
	return false
}

// limitReason says which limit stopped the search early, and why in
// words, or NoLimit and "".
func (s *search) limitReason() (Limit, string) {
	switch s.stop.Load() {
	case stopTimeout:
		if room := time.Duration(s.save.room.Load()); room > 0 {
			return TimeLimit, fmt.Sprintf("time limit reached (--timeout %s, of which the last %s are left to save the checkpoint)", s.cfg.Timeout, roundDuration(room))
		}
		return TimeLimit, fmt.Sprintf("time limit reached (--timeout %s)", s.cfg.Timeout)
	case stopMemory:
		return MemoryLimit, fmt.Sprintf("memory limit reached (--max-memory %s)", formatBytes(s.cfg.MaxMemory))
	case stopContext:
		if cause := context.Cause(s.cfg.Context); cause != nil && cause != context.Canceled {
			return Interrupted, cause.Error()
		}
		return Interrupted, "interrupted"
	}
	return NoLimit, ""
}

// cutShort records that the search ends incomplete, at limit, for the
// reason given (which Result.Reason reports).
func (s *search) cutShort(limit Limit, reason string) {
	s.limit, s.incomplete = limit, reason
}

func formatBytes(b uint64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}
