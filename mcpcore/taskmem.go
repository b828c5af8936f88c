package mcpcore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"maps"
	"sync"
	"time"
)

// MemoryTaskStore is a TaskStore that keeps tasks in this process and
// runs each in a goroutine: for a single-instance server and tests (a
// task does not survive a restart, and another instance cannot see it).
// Tasks are keyed by the principal's user id (none: one shared space).
type MemoryTaskStore struct {
	ttl, poll time.Duration
	now       func() time.Time

	mu    sync.Mutex
	tasks map[string]*memTask
}

type memTask struct {
	t      Task
	owner  string
	cancel context.CancelFunc
	inputs map[string]json.RawMessage
	state  []byte
	resume chan struct{}
}

// NewMemoryTaskStore returns a store whose tasks stay retrievable for ttl
// after creation (0: one hour) and suggest polling every poll (0: 500 ms).
func NewMemoryTaskStore(ttl, poll time.Duration) *MemoryTaskStore {
	if ttl <= 0 {
		ttl = time.Hour
	}
	if poll <= 0 {
		poll = 500 * time.Millisecond
	}
	return &MemoryTaskStore{ttl: ttl, poll: poll, now: time.Now, tasks: map[string]*memTask{}}
}

func owner(ctx context.Context) string {
	if p, ok := PrincipalFrom(ctx); ok {
		return p.UserID
	}
	return ""
}

// newTaskID returns 128 random bits, hex: unguessable, since the id is
// the handle to the caller's task.
func newTaskID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Create implements TaskStore: the task is in the map before it returns.
func (m *MemoryTaskStore) Create(ctx context.Context, call TaskCall) (Task, error) {
	now := m.now()
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	mt := &memTask{
		t:     Task{ID: newTaskID(), Status: TaskWorking, CreatedAt: now, UpdatedAt: now, TTL: m.ttl, PollInterval: m.poll},
		owner: owner(ctx), cancel: cancel, inputs: maps.Clone(call.Inputs), resume: make(chan struct{}, 1),
	}
	if mt.inputs == nil {
		mt.inputs = map[string]json.RawMessage{}
	}
	m.mu.Lock()
	m.sweep(now)
	m.tasks[mt.t.ID] = mt
	t := mt.t
	m.mu.Unlock()
	go m.run(rctx, mt, call)
	return t, nil
}

// run executes the call until it ends, waiting out input_required.
func (m *MemoryTaskStore) run(ctx context.Context, mt *memTask, call TaskCall) {
	defer mt.cancel()
	m.mu.Lock()
	inputs, state := maps.Clone(mt.inputs), mt.state
	m.mu.Unlock()
	for {
		out := call.Run(ctx, inputs, state)
		m.mu.Lock()
		if mt.t.Status.Terminal() { // cancelled meanwhile
			m.mu.Unlock()
			return
		}
		mt.t.UpdatedAt = m.now()
		mt.t.Status = out.Status
		switch out.Status {
		case TaskInputRequired:
			mt.t.InputRequests, mt.state = out.InputRequests, out.State
			mt.t.StatusMessage = "waiting for the client's input"
			m.mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-mt.resume:
			}
			m.mu.Lock()
			inputs, state = maps.Clone(mt.inputs), mt.state
			m.mu.Unlock()
			continue
		case TaskCompleted:
			mt.t.Result, mt.t.StatusMessage = out.Result, ""
		case TaskFailed:
			mt.t.Error = out.Error
			if out.Error != nil {
				mt.t.StatusMessage = out.Error.Message
			}
		}
		m.mu.Unlock()
		return
	}
}

// sweep drops expired tasks; m.mu is held.
func (m *MemoryTaskStore) sweep(now time.Time) {
	for id, mt := range m.tasks {
		if now.Sub(mt.t.CreatedAt) > mt.t.TTL {
			mt.cancel()
			delete(m.tasks, id)
		}
	}
}

// find returns the caller's live task; m.mu is held.
func (m *MemoryTaskStore) find(ctx context.Context, id string) (*memTask, error) {
	mt := m.tasks[id]
	if mt == nil || mt.owner != owner(ctx) {
		return nil, ErrTaskNotFound
	}
	if m.now().Sub(mt.t.CreatedAt) > mt.t.TTL {
		mt.cancel()
		delete(m.tasks, id)
		return nil, ErrTaskNotFound
	}
	return mt, nil
}

// Get implements TaskStore.
func (m *MemoryTaskStore) Get(ctx context.Context, id string) (Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	mt, err := m.find(ctx, id)
	if err != nil {
		return Task{}, err
	}
	t := mt.t
	t.InputRequests = maps.Clone(t.InputRequests)
	return t, nil
}

// Update implements TaskStore.
func (m *MemoryTaskStore) Update(ctx context.Context, id string, responses map[string]json.RawMessage) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	mt, err := m.find(ctx, id)
	if err != nil || mt.t.Status != TaskInputRequired {
		return err
	}
	answered := false
	for k, v := range responses {
		if _, ok := mt.t.InputRequests[k]; ok {
			mt.inputs[k] = v
			delete(mt.t.InputRequests, k)
			answered = true
		}
	}
	if answered {
		mt.t.UpdatedAt = m.now()
	}
	if answered && len(mt.t.InputRequests) == 0 {
		mt.t.Status, mt.t.InputRequests, mt.t.StatusMessage = TaskWorking, nil, ""
		select {
		case mt.resume <- struct{}{}:
		default:
		}
	}
	return nil
}

// Cancel implements TaskStore.
func (m *MemoryTaskStore) Cancel(ctx context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	mt, err := m.find(ctx, id)
	if err != nil || mt.t.Status.Terminal() {
		return err
	}
	mt.t.Status, mt.t.StatusMessage, mt.t.InputRequests = TaskCancelled, "cancelled by the client", nil
	mt.t.UpdatedAt = m.now()
	mt.cancel()
	return nil
}
