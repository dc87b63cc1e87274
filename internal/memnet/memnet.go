// Package memnet is an in-memory TCP-like network for tests that run an HTTP client and an
// HTTP server inside a testing/synctest bubble.
//
// A real loopback socket is not durably blocking, so a bubble whose goroutines wait on one
// never advances its fake clock. Every wait in memnet is on a channel instead, so a client
// backing off for ten virtual seconds returns at once, and time.Since measures the backoff
// exactly. The package also works outside a bubble.
//
// A Network maps addresses ("127.0.0.1:8080", "localhost:80") to listeners. Dialing an
// address nobody listens on fails as a refused TCP connection does, with a *net.OpError
// whose Op is "dial". Each direction of a connection buffers up to BufferSize bytes, like a
// socket buffer: a writer blocks while the buffer is full, so a server streaming a huge
// body cannot run ahead of a client that stopped reading. Closing one end makes the other
// end read io.EOF (after what is buffered) and fail to write.
package memnet

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// BufferSize is how many bytes each direction of a connection holds before a writer waits.
const BufferSize = 64 << 10

// Network is a set of in-memory listeners. The zero value is not usable; call New.
type Network struct {
	mu        sync.Mutex
	listeners map[string]*Listener
	dials     map[string]int
	nextPort  int
}

// New returns an empty network.
func New() *Network {
	return &Network{listeners: map[string]*Listener{}, dials: map[string]int{}, nextPort: 30000}
}

// Listen listens on addr, "host:port". Port 0 picks a free port; the listener's Addr tells
// which. It fails when addr is already taken. network must be "tcp", "tcp4" or "tcp6".
func (n *Network) Listen(network, addr string) (net.Listener, error) {
	return n.listen(network, addr)
}

func (n *Network) listen(network, addr string) (*Listener, error) {
	if network != "tcp" && network != "tcp4" && network != "tcp6" {
		return nil, &net.OpError{Op: "listen", Net: network, Err: net.UnknownNetworkError(network)}
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, &net.OpError{Op: "listen", Net: network, Err: err}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if port == "0" {
		for {
			n.nextPort++
			port = strconv.Itoa(n.nextPort)
			if n.listeners[net.JoinHostPort(host, port)] == nil {
				break
			}
		}
	}
	key := net.JoinHostPort(host, port)
	if n.listeners[key] != nil {
		return nil, &net.OpError{Op: "listen", Net: network, Addr: tcpAddr(key),
			Err: &os.SyscallError{Syscall: "bind", Err: syscall.EADDRINUSE}}
	}
	l := &Listener{
		network: n,
		key:     key,
		addr:    tcpAddr(key),
		conns:   make(chan net.Conn, 128),
		done:    make(chan struct{}),
	}
	n.listeners[key] = l
	return l, nil
}

// DialContext connects to addr. It has the signature of http.Transport.DialContext.
func (n *Network) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	n.mu.Lock()
	l := n.listeners[addr]
	n.nextPort++
	local := tcpAddr(net.JoinHostPort("127.0.0.1", strconv.Itoa(n.nextPort)))
	n.mu.Unlock()
	refused := &net.OpError{Op: "dial", Net: network, Addr: tcpAddr(addr),
		Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	if l == nil {
		return nil, refused
	}
	client, server := pipePair(local, l.addr)
	select {
	case l.conns <- server:
	case <-l.done:
		return nil, refused
	case <-ctx.Done():
		return nil, &net.OpError{Op: "dial", Net: network, Addr: tcpAddr(addr), Err: ctx.Err()}
	}
	select {
	case <-l.done: // closed while this dial was queued: nobody will accept it
		server.Close()
		client.Close()
		return nil, refused
	default:
	}
	n.mu.Lock()
	n.dials[addr]++
	n.mu.Unlock()
	return client, nil
}

// Dials returns how many connections to addr were opened.
func (n *Network) Dials(addr string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.dials[addr]
}

// Transport returns a new HTTP/1.1 transport that dials on n: no proxy, no HTTP/2.
func (n *Network) Transport() *http.Transport {
	return &http.Transport{DialContext: n.DialContext}
}

// Serve serves h on addr until the returned server is closed. The caller must close it
// (Server.Close) before a synctest bubble ends, and close idle client connections too
// (Transport.CloseIdleConnections).
func (n *Network) Serve(addr string, h http.Handler) (*http.Server, net.Addr, error) {
	l, err := n.listen("tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(l)
	return srv, l.Addr(), nil
}

// Listener is a listener on a Network.
type Listener struct {
	network *Network
	key     string
	addr    net.Addr
	conns   chan net.Conn
	done    chan struct{}
	once    sync.Once
}

// Accept waits for the next connection.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.addr, Err: net.ErrClosed}
	}
}

// Close stops listening: later dials are refused. Connections already accepted stay open;
// connections dialed but not yet accepted are closed.
func (l *Listener) Close() error {
	l.once.Do(func() {
		l.network.mu.Lock()
		if l.network.listeners[l.key] == l {
			delete(l.network.listeners, l.key)
		}
		l.network.mu.Unlock()
		close(l.done)
		for {
			select {
			case c := <-l.conns:
				c.Close()
			default:
				return
			}
		}
	})
	return nil
}

// Addr returns the listener's address, a *net.TCPAddr.
func (l *Listener) Addr() net.Addr { return l.addr }

func tcpAddr(hostport string) net.Addr {
	host, port, _ := net.SplitHostPort(hostport)
	p, _ := strconv.Atoi(port)
	ip := net.ParseIP(host)
	if ip == nil {
		// A name such as "localhost": keep it visible in errors and logs.
		return &namedAddr{s: hostport}
	}
	return &net.TCPAddr{IP: ip, Port: p}
}

// namedAddr is the address of a listener on a host name.
type namedAddr struct{ s string }

func (a *namedAddr) Network() string { return "tcp" }
func (a *namedAddr) String() string  { return a.s }

// pipe is one direction of a connection: a bounded buffer. Waiters wait on changed, a
// channel that is closed and replaced on every change of state, so that they block
// durably inside a synctest bubble.
type pipe struct {
	mu           sync.Mutex
	buf          []byte
	readerClosed bool      // the reading end was closed: writes fail, reads fail
	writerClosed bool      // the writing end was closed: reads drain, then io.EOF
	readDeadline time.Time // of the reading end
	writeDeadln  time.Time // of the writing end
	changed      chan struct{}
}

func newPipe() *pipe { return &pipe{changed: make(chan struct{})} }

// notify wakes every waiter; p.mu is held.
func (p *pipe) notify() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// wait waits for a change of state or the deadline, whichever comes first; p.mu is held
// on entry and on return.
func (p *pipe) wait(deadline time.Time) {
	ch := p.changed
	p.mu.Unlock()
	defer p.mu.Lock()
	if deadline.IsZero() {
		<-ch
		return
	}
	d := time.Until(deadline)
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	}
}

func expired(deadline time.Time) bool {
	return !deadline.IsZero() && !time.Now().Before(deadline)
}

func (p *pipe) read(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		switch {
		case p.readerClosed:
			return 0, net.ErrClosed
		case len(p.buf) > 0:
			if len(b) == 0 {
				return 0, nil
			}
			n := copy(b, p.buf)
			p.buf = p.buf[n:]
			if len(p.buf) == 0 {
				p.buf = nil // let a drained buffer go
			}
			p.notify()
			return n, nil
		case p.writerClosed:
			return 0, io.EOF
		case expired(p.readDeadline):
			return 0, os.ErrDeadlineExceeded
		}
		p.wait(p.readDeadline)
	}
}

func (p *pipe) write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	written := 0
	for {
		switch {
		case p.writerClosed:
			return written, net.ErrClosed
		case p.readerClosed:
			return written, &os.SyscallError{Syscall: "write", Err: syscall.EPIPE}
		case len(b) == 0:
			return written, nil
		case expired(p.writeDeadln):
			return written, os.ErrDeadlineExceeded
		}
		if space := BufferSize - len(p.buf); space > 0 {
			n := min(space, len(b))
			p.buf = append(p.buf, b[:n]...)
			b = b[n:]
			written += n
			p.notify()
			continue
		}
		p.wait(p.writeDeadln)
	}
}

func (p *pipe) closeReader() {
	p.mu.Lock()
	p.readerClosed = true
	p.buf = nil
	p.notify()
	p.mu.Unlock()
}

func (p *pipe) closeWriter() {
	p.mu.Lock()
	p.writerClosed = true
	p.notify()
	p.mu.Unlock()
}

func (p *pipe) setReadDeadline(t time.Time) {
	p.mu.Lock()
	p.readDeadline = t
	p.notify()
	p.mu.Unlock()
}

func (p *pipe) setWriteDeadline(t time.Time) {
	p.mu.Lock()
	p.writeDeadln = t
	p.notify()
	p.mu.Unlock()
}

// conn is one end of an in-memory connection.
type conn struct {
	in, out       *pipe
	local, remote net.Addr
	once          sync.Once
}

func pipePair(clientAddr, serverAddr net.Addr) (client, server *conn) {
	a, b := newPipe(), newPipe() // a: client to server, b: server to client
	client = &conn{in: b, out: a, local: clientAddr, remote: serverAddr}
	server = &conn{in: a, out: b, local: serverAddr, remote: clientAddr}
	return client, server
}

func (c *conn) Read(b []byte) (int, error) {
	n, err := c.in.read(b)
	if err != nil && err != io.EOF {
		err = &net.OpError{Op: "read", Net: "tcp", Source: c.local, Addr: c.remote, Err: err}
	}
	return n, err
}

func (c *conn) Write(b []byte) (int, error) {
	n, err := c.out.write(b)
	if err != nil {
		err = &net.OpError{Op: "write", Net: "tcp", Source: c.local, Addr: c.remote, Err: err}
	}
	return n, err
}

// Close closes both directions: the peer reads io.EOF once it has read what was sent, and
// its writes fail.
func (c *conn) Close() error {
	c.once.Do(func() {
		c.in.closeReader()
		c.out.closeWriter()
	})
	return nil
}

// CloseWrite closes the sending direction only, as TCP's half-close does.
func (c *conn) CloseWrite() error {
	c.out.closeWriter()
	return nil
}

func (c *conn) LocalAddr() net.Addr  { return c.local }
func (c *conn) RemoteAddr() net.Addr { return c.remote }

func (c *conn) SetDeadline(t time.Time) error {
	c.in.setReadDeadline(t)
	c.out.setWriteDeadline(t)
	return nil
}

func (c *conn) SetReadDeadline(t time.Time) error {
	c.in.setReadDeadline(t)
	return nil
}

func (c *conn) SetWriteDeadline(t time.Time) error {
	c.out.setWriteDeadline(t)
	return nil
}

// String names the connection in test failures, e.g. "127.0.0.1:30001->127.0.0.1:8080".
func (c *conn) String() string { return fmt.Sprintf("%v->%v", c.local, c.remote) }
