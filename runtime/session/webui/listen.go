package webui

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"
)

// RemoteError refuses to bind to an address other people can reach.
type RemoteError struct{ Host string }

func (e *RemoteError) Error() string {
	return fmt.Sprintf("refusing to serve on %s: it is not a loopback address, and the authoring UI has no authentication and writes to the workspace; use --host 127.0.0.1 (the default), or pass --allow-remote if you really mean it", e.Host)
}

// InUseError is a port another program already listens on.
type InUseError struct {
	Addr string
	Err  error
}

func (e *InUseError) Error() string {
	return fmt.Sprintf("cannot listen on %s: the port is already in use; stop the program that holds it or pick another with --port N (--port 0 picks a free one)", e.Addr)
}

func (e *InUseError) Unwrap() error { return e.Err }

// Loopback reports whether host names only this machine: localhost, or an
// IP address in 127.0.0.0/8 or ::1.
func Loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Listen opens the server's TCP listener on host:port (port 0: a free
// one). A host that is not loopback is refused with a *RemoteError unless
// allowRemote is set; a port in use is an *InUseError.
func Listen(host string, port int, allowRemote bool) (net.Listener, error) {
	if host == "" {
		return nil, errors.New("the host is empty: use --host 127.0.0.1")
	}
	if port < 0 || port > 65535 {
		return nil, fmt.Errorf("--port %d is not a TCP port (0 to 65535; 0 picks a free one)", port)
	}
	if !allowRemote && !Loopback(host) {
		return nil, &RemoteError{Host: host}
	}
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	l, err := net.Listen("tcp", addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, &InUseError{Addr: addr, Err: err}
		}
		return nil, fmt.Errorf("cannot listen on %s: %v", addr, err)
	}
	return l, nil
}

// Serve serves h on l until ctx is done, then shuts down, letting the
// calls in progress finish (at most 10 seconds).
func Serve(ctx context.Context, l net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
