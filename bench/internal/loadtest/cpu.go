package loadtest

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// clockTicks is the kernel's USER_HZ, the unit of /proc CPU times (100 on
// every Linux this runs on).
const clockTicks = 100

// cpuSample is CPU time, in seconds, spent so far by the parts of one
// configuration, and by the machine.
type cpuSample struct {
	instances float64
	postgres  float64 // the backends serving the run's database
	bouncer   float64
	generator float64 // this process: the agents and the proxy
	machine   float64 // every CPU of the machine, busy time
	wall      float64 // the machine's total time, busy or idle, summed over CPUs
	backends  map[int]float64
}

// minus is the CPU spent between o and c. A backend absent from o
// started in between: all its time counts.
func (c cpuSample) minus(o cpuSample) cpuSample {
	d := cpuSample{
		instances: c.instances - o.instances, bouncer: c.bouncer - o.bouncer,
		generator: c.generator - o.generator, machine: c.machine - o.machine, wall: c.wall - o.wall,
	}
	for pid, t := range c.backends {
		d.postgres += t - o.backends[pid]
	}
	return d
}

// cpu samples the CPU time of everything serving the run.
func (e *env) cpu(ctx context.Context) cpuSample {
	s := cpuSample{backends: map[int]float64{}}
	for _, p := range e.procs {
		s.instances += ProcCPU(p.pid())
	}
	if e.bouncer != nil {
		s.bouncer = ProcCPU(e.bouncer.Pid())
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		s.generator = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
	}
	s.machine, s.wall = machineCPU()
	if e.kind == "postgres" && e.check != nil {
		rows, err := e.check.QueryContext(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
		if err == nil {
			for rows.Next() {
				var pid int
				if rows.Scan(&pid) == nil {
					s.backends[pid] = ProcCPU(pid)
				}
			}
			rows.Close()
		}
	}
	return s
}

// ProcCPU is a process's user plus system CPU time in seconds, from
// /proc/PID/stat (0 when it cannot be read).
func ProcCPU(pid int) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces: count from after it.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / clockTicks
}

// machineCPU is the machine's busy and total CPU time in seconds, summed
// over its CPUs, from /proc/stat.
func machineCPU() (busy, total float64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0, 0
	}
	for i, v := range f[1:] {
		n, _ := strconv.ParseFloat(v, 64)
		total += n
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return busy / clockTicks, total / clockTicks
}
