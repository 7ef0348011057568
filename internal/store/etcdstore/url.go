package etcdstore

import (
	"errors"
	"fmt"
	"net"
	"strings"
)

// ErrBadURL: a store URL that does not name an etcd cluster and prefix.
var ErrBadURL = errors.New("bad etcd store URL")

// Scheme starts a store URL naming an etcd cluster.
const Scheme = "etcd://"

// ParseURL reads etcd://host:port[,host:port...]/prefix: the members'
// client endpoints and the installation's key prefix, which must not be
// empty (one cluster may serve several installations, each under its own).
// The prefix is kept as given with a trailing "/", so "virgo/home" and
// "virgo/home2" never share a key.
func ParseURL(raw string) (Options, error) {
	rest, ok := strings.CutPrefix(raw, Scheme)
	if !ok {
		return Options{}, fmt.Errorf("%w: %q does not start with %s", ErrBadURL, raw, Scheme)
	}
	hosts, prefix, _ := strings.Cut(rest, "/")
	prefix = strings.Trim(prefix, "/")
	if prefix == "" {
		return Options{}, fmt.Errorf("%w: %q names no prefix; write %shost:2379/PREFIX (one prefix per installation)", ErrBadURL, raw, Scheme)
	}
	var eps []string
	for _, h := range strings.Split(hosts, ",") {
		host, port, err := net.SplitHostPort(h)
		if err != nil || host == "" || port == "" {
			return Options{}, fmt.Errorf("%w: %q: endpoint %q is not host:port", ErrBadURL, raw, h)
		}
		eps = append(eps, h)
	}
	return Options{Endpoints: eps, Prefix: prefix + "/"}, nil
}
