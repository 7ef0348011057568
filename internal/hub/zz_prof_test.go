package hub

import (
	"context"
	"os"
	"os/exec"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

func TestZZProf(t *testing.T) {
	dir := "/tmp/perf/fx100k"
	home := registry.Home{Dir: dir}
	if _, err := os.Stat(dir + "/done"); err != nil {
		os.RemoveAll(dir)
		os.MkdirAll(dir, 0o700)
		st, err := store.OpenBolt(home.DBPath(), store.Options{})
		mustNil(t, err)
		registerMany(t, registry.New(st, home), 10000)
		mustNil(t, st.Close())
		decidedHistory(t, home, 100000)
		enrol(t, home.Dir, "henry")
		c, err := hubclient.Dial(context.Background(), home.Dir, hubclient.AsOperator("henry"), hubclient.WithStarter(InProcess(home)))
		mustNil(t, err)
		c.Close()
		os.WriteFile(dir+"/done", nil, 0o600)
	}
	out, _ := exec.Command("ls", "-la", dir).CombinedOutput()
	t.Logf("%s", out)
	f, _ := os.Create("/tmp/perf/start.cpu")
	pprof.StartCPUProfile(f)
	for i := 0; i < 5; i++ {
		t0 := time.Now()
		st, err := store.OpenBolt(home.DBPath(), store.Options{})
		mustNil(t, err)
		t1 := time.Now()
		_, err = New(context.Background(), Config{Home: home, Store: st})
		mustNil(t, err)
		t2 := time.Now()
		st.Close()
		c, err := hubclient.Dial(context.Background(), home.Dir, hubclient.AsOperator("henry"), hubclient.WithStarter(InProcess(home)))
		mustNil(t, err)
		t3 := time.Now()
		c.Close()
		t.Logf("open %v new %v dial %v", t1.Sub(t0), t2.Sub(t1), t3.Sub(t2))
	}
	pprof.StopCPUProfile()
	f.Close()
}
