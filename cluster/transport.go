package cluster

import (
	"fmt"
	"time"

	server "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// startEmbedded starts a NATS server in this process on 127.0.0.1:port.
func startEmbedded(port int, timeout time.Duration) (*server.Server, error) {
	opts := &server.Options{
		Host:       "127.0.0.1",
		Port:       port,
		NoLog:      true,
		NoSigs:     true,
		MaxPayload: 8 << 20,
		// A rank that reads slowly (it is expanding its level) must not be
		// cut off: its client queues what it has not read yet.
		MaxPending:    1 << 30,
		WriteDeadline: timeout,
	}
	s, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("cluster: starting the embedded NATS server on 127.0.0.1:%d: %w", port, err)
	}
	go s.Start()
	if !s.ReadyForConnections(timeout) {
		s.Shutdown()
		return nil, fmt.Errorf("cluster: the embedded NATS server did not listen on 127.0.0.1:%d within %v (is the port taken?)", port, timeout)
	}
	return s, nil
}

// connect connects to the server at url, trying again until timeout (the
// server may start after this rank). lost is called when the connection
// is down, found when it is back, both from the client's goroutine.
func connect(url string, name string, timeout time.Duration, lost func(error), found func()) (*nats.Conn, error) {
	opts := []nats.Option{
		nats.Name(name),
		nats.Timeout(timeout),
		nats.MaxReconnects(-1), // the rank's own timeout decides
		nats.ReconnectWait(100 * time.Millisecond),
		nats.ReconnectBufSize(64 << 20),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) { lost(err) }),
		nats.ReconnectHandler(func(*nats.Conn) { found() }),
		nats.ClosedHandler(func(*nats.Conn) { lost(nats.ErrConnectionClosed) }),
		nats.NoCallbacksAfterClientClose(),
	}
	deadline := time.Now().Add(timeout)
	for {
		nc, err := nats.Connect(url, opts...)
		if err == nil {
			return nc, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("cannot reach the NATS server %s within %v: %w", url, timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
