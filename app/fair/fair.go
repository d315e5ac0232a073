package fair

// Due is one piece of background work that could be claimed: a webhook delivery, a broadcast
// recipient, a knowledge content. Queue is the line it waits in within its organization (an
// endpoint, a broadcast, an assistant).
type Due struct {
	ID, Org, Queue string
}

// Room is what one claim round may take (app.ClaimRoom). The webhook dispatcher, the broadcast sender and
// the knowledge processor share it, so that one organization's slow or hanging work cannot
// hold every worker while another organization's work waits.
type Room struct {
	Limit    int            // free workers
	PerOrg   int            // in flight per organization at most; 0: no cap
	PerQueue int            // in flight per queue at most; 0: no cap
	Org      map[string]int // in flight now, per organization
	Queue    map[string]int // in flight now, per queue
	// LookFirst asks the claim to look for due work on a reader before it takes the single
	// writer: for idle loops, which would otherwise write on every tick for nothing.
	LookFirst bool
}

// Pick chooses up to Limit of due (given oldest first) within the caps, round-robin: each
// pick goes to the organization with the fewest pieces in flight (counting this round's), and
// within it to the queue with the fewest; ties go to the oldest waiting piece. So a new
// organization's work is taken before more of a busy one's, however deep the busy one's
// backlog, and an organization's endpoints (or broadcasts) share its room the same way.
func (r Room) Pick(due []Due) []string {
	orgs := groupDue(due)
	takenOrg, takenQueue := map[string]int{}, map[string]int{}
	var out []string
	for len(out) < r.Limit {
		var best *dueOrg
		var bestQ *dueQueue
		for _, o := range orgs {
			if r.PerOrg > 0 && r.Org[o.id]+takenOrg[o.id] >= r.PerOrg {
				continue
			}
			q := r.nextQueue(o, takenQueue)
			if q == nil {
				continue
			}
			if best == nil || r.before(o, q, best, bestQ, takenOrg) {
				best, bestQ = o, q
			}
		}
		if best == nil {
			break
		}
		out = append(out, due[bestQ.items[bestQ.next]].ID)
		bestQ.next++
		takenOrg[best.id]++
		takenQueue[bestQ.id]++
	}
	return out
}

// before tells whether organization o (with its next queue q) goes before the best so far.
func (r Room) before(o *dueOrg, q *dueQueue, best *dueOrg, bestQ *dueQueue, taken map[string]int) bool {
	n, m := r.Org[o.id]+taken[o.id], r.Org[best.id]+taken[best.id]
	if n != m {
		return n < m
	}
	return q.items[q.next] < bestQ.items[bestQ.next]
}

// nextQueue is the queue of o that the next pick of o takes from, nil when none has room.
func (r Room) nextQueue(o *dueOrg, taken map[string]int) *dueQueue {
	var best *dueQueue
	for _, q := range o.queues {
		busy := r.Queue[q.id] + taken[q.id]
		if q.next == len(q.items) || (r.PerQueue > 0 && busy >= r.PerQueue) {
			continue
		}
		if best == nil {
			best = q
			continue
		}
		if b := r.Queue[best.id] + taken[best.id]; busy < b || (busy == b && q.items[q.next] < best.items[best.next]) {
			best = q
		}
	}
	return best
}

type dueQueue struct {
	id    string
	items []int // indexes into due, oldest first
	next  int
}

type dueOrg struct {
	id     string
	queues []*dueQueue
}

// groupDue groups due by organization and queue, keeping each queue's order.
func groupDue(due []Due) []*dueOrg {
	var orgs []*dueOrg
	byOrg, byQueue := map[string]*dueOrg{}, map[string]*dueQueue{}
	for i, d := range due {
		o := byOrg[d.Org]
		if o == nil {
			o = &dueOrg{id: d.Org}
			byOrg[d.Org] = o
			orgs = append(orgs, o)
		}
		key := d.Org + "\x00" + d.Queue
		q := byQueue[key]
		if q == nil {
			q = &dueQueue{id: d.Queue}
			byQueue[key] = q
			o.queues = append(o.queues, q)
		}
		q.items = append(q.items, i)
	}
	return orgs
}

// ByTenant answers the room and due regrouped by tenant, the top-level organization
// (tenant maps an organization to its own; one missing stands for itself): PerOrg and the
// round-robin then count a tenant's sub-organizations together, so that a tenant cannot hold
// more workers than its share by spreading its work over sub-organizations. Queues keep their
// ids (endpoints, broadcasts, assistants and chats are unique across organizations).
func (r Room) ByTenant(due []Due, tenant map[string]string) (Room, []Due) {
	of := func(org string) string {
		if t, ok := tenant[org]; ok {
			return t
		}
		return org
	}
	inFlight := make(map[string]int, len(r.Org))
	for o, n := range r.Org {
		inFlight[of(o)] += n
	}
	r.Org = inFlight
	out := make([]Due, len(due))
	for i, d := range due {
		d.Org = of(d.Org)
		out[i] = d
	}
	return r, out
}

// OrgShare is the cap on one organization's pieces in flight: configured when positive,
// otherwise three quarters of the workers. That is more than the half that one endpoint may
// hold, so another endpoint of the same organization still gets workers beside a hanging one,
// and less than all, so another organization always does.
func OrgShare(configured, workers int) int {
	if configured > 0 {
		return configured
	}
	return max(1, workers*3/4)
}
