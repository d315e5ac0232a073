package app_test

import (
	"math"
	"testing"
	"time"

	"wsapi/app"
)

// assisted starts a conversation with a new contact, answered by a new assistant.
func (e *domainEnv) assisted(conv app.ConversationConfig) app.Chat {
	e.t.Helper()
	cfg := app.DefaultAssistantConfig()
	cfg.Conversation = conv
	bot := need(e.svc.CreateAssistant(e.ctx, e.org.ID, app.AssistantInput{Name: ptr("Bot"), Config: &cfg}))
	return e.chatWith("Ann", app.ChannelProfile{Type: "email", Email: "ann@example.com"}, app.ChatInput{AssistantID: bot.ID})
}

// claimRuns starts the due runs as owner.
func (e *domainEnv) claimRuns(owner string) []app.RunJob {
	e.t.Helper()
	return need(e.svc.ClaimRuns(e.ctx, owner, app.ClaimRoom{Limit: 10}))
}

// runFor has the contact write and answers the run it starts once the debounce is over.
func (e *domainEnv) runFor(chatID, text string) app.RunJob {
	e.t.Helper()
	e.say(chatID, "user", text)
	if early := e.claimRuns("r1"); len(early) != 0 {
		e.t.Fatalf("a run started within the debounce: %+v", early)
	}
	e.clock.Advance(e.deps.RunPolicy.Debounce)
	jobs := e.claimRuns("r1")
	if len(jobs) != 1 || jobs[0].ChatID != chatID {
		e.t.Fatalf("claimed %+v", jobs)
	}
	return jobs[0]
}

func (e *domainEnv) message(chatID, id string) app.Message {
	e.t.Helper()
	l := need(e.svc.ListMessages(e.ctx, e.org.ID, chatID, "", app.Page{Page: 1, Take: 100}))
	for _, m := range l.Items {
		if m.ID == id {
			return m
		}
	}
	e.t.Fatalf("message %s not in chat %s", id, chatID)
	return app.Message{}
}

func (e *domainEnv) balance() float64 {
	e.t.Helper()
	return need(e.svc.GetOrg(e.ctx, e.org.ID)).Balance
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestRunsChargeTheBalanceAndUsageByDay: a run's model calls are priced per million tokens
// (fresh input, cache reads, output), taken from the balance and reported by day and model;
// an open question schedules the follow-up, which runs the next day.
func TestRunsChargeTheBalanceAndUsageByDay(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	chat := e.assisted(app.ConversationConfig{ThreadMode: "new", AutoIntroMessage: "Hi, I am Bot.", EnableAutoFollowUps: true})
	if !chat.State.AIEnabled {
		t.Fatal("a chat with an enabled assistant starts with AI off")
	}
	day1 := e.clock.Now().Format(time.DateOnly)
	job := e.runFor(chat.ID, "What are your prices?")
	if job.Model != testModel || job.AssistantID != *chat.State.AssistantID || job.FollowUp {
		t.Fatalf("job %+v", job)
	}
	in := need(e.svc.LoadRun(e.ctx, job))
	if len(in.History) != 2 || in.History[0].Role != "user" || in.History[1].Role != "assistant" ||
		in.Contact.ID != chat.ContactID || in.Channel.Email != "ann@example.com" {
		t.Fatalf("prompt: history %d, contact %q, channel %+v", len(in.History), in.Contact.ID, in.Channel)
	}
	if stop := need(e.svc.FlushRun(e.ctx, job, "Our plans")); stop {
		t.Fatal("a live run was told to stop")
	}
	if m := e.message(chat.ID, job.MessageID); m.Status != "RUNNING" || m.Messages[0].Parts[0].Text != "Our plans" {
		t.Fatalf("flushed message %+v", m)
	}
	call := app.UsageCounter{InputTokens: 1000, OutputTokens: 200, TotalTokens: 1200}
	e.must(e.svc.FinishRun(e.ctx, job, app.RunOutcome{Status: "COMPLETED", Text: "Our plans start at 5. Which one suits you?",
		Turns: []app.TurnUsage{{Model: testModel, UsageCounter: call}}}))
	cost1 := (1000*2 + 200*10) / 1e6
	if b := e.balance(); !near(b, app.InitialBalance-cost1) {
		t.Fatalf("balance %v after a run costing %v", b, cost1)
	}
	m := e.message(chat.ID, job.MessageID)
	if m.Status != "COMPLETED" || m.Usage == nil || m.Usage.InputTokens != 1000 || len(m.Usage.Turns) != 1 {
		t.Fatalf("final message %+v", m)
	}
	c := need(e.svc.GetChat(e.ctx, e.org.ID, chat.ID))
	if !c.State.FollowUpAt.Equal(e.clock.Now().Add(e.deps.Automation.FollowUpAfter)) {
		t.Fatalf("an open question left follow_up_at %v", c.State.FollowUpAt)
	}

	// The next day: the follow-up runs and reads from the cache.
	e.clock.Advance(24 * time.Hour)
	day2 := e.clock.Now().Format(time.DateOnly)
	if n := need(e.svc.SendFollowUps(e.ctx)); n != 1 {
		t.Fatalf("%d follow-ups scheduled", n)
	}
	jobs := e.claimRuns("r1")
	if len(jobs) != 1 || !jobs[0].FollowUp {
		t.Fatalf("follow-up claim %+v", jobs)
	}
	cached := app.UsageCounter{InputTokens: 1000, InputTokensCacheRead: 400, OutputTokens: 100, TotalTokens: 1100}
	e.must(e.svc.FinishRun(e.ctx, jobs[0], app.RunOutcome{Status: "COMPLETED", Text: "Still there?",
		Turns: []app.TurnUsage{{Model: testModel, UsageCounter: cached}}}))
	cost2 := (600*2 + 400*1 + 100*10) / 1e6
	if b := e.balance(); !near(b, app.InitialBalance-cost1-cost2) {
		t.Fatalf("balance %v after runs costing %v and %v", b, cost1, cost2)
	}

	pg := app.Page{Page: 1, Take: 10}
	for _, q := range []struct {
		name  string
		query app.UsageQuery
		days  []string
		costs []float64
	}{
		{"the last 30 days", app.UsageQuery{}, []string{day1, day2}, []float64{cost1, cost2}},
		{"one day", app.UsageQuery{From: day2, To: day2}, []string{day2}, []float64{cost2}},
		{"the assistant", app.UsageQuery{AssistantID: job.AssistantID}, []string{day1, day2}, []float64{cost1, cost2}},
		{"another assistant", app.UsageQuery{AssistantID: "asst_other"}, nil, nil},
	} {
		l := need(e.svc.UsageReport(e.ctx, e.org.ID, q.query, pg))
		if len(l.Items) != len(q.days) {
			t.Fatalf("%s: %+v", q.name, l.Items)
		}
		for i, row := range l.Items {
			if row.Day != q.days[i] || row.Model != testModel || row.Calls != 1 || !near(row.Cost, q.costs[i]) || row.Estimated {
				t.Errorf("%s: row %d %+v", q.name, i, row)
			}
		}
	}
}

// TestRunWithoutBalanceFails: an organization at 0 gets no run: its reply fails at once.
func TestRunWithoutBalanceFails(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	chat := e.assisted(app.ConversationConfig{ThreadMode: "new"})
	need(e.svc.SetBalance(e.ctx, e.org.ID, 0))
	e.say(chat.ID, "user", "hello")
	e.clock.Advance(e.deps.RunPolicy.Debounce)
	if jobs := e.claimRuns("r1"); len(jobs) != 0 {
		t.Fatalf("a run started without balance: %+v", jobs)
	}
	l := need(e.svc.ListMessages(e.ctx, e.org.ID, chat.ID, "", app.Page{Page: 1, Take: 10}))
	last := l.Items[len(l.Items)-1]
	if last.Role != "assistant" || last.Status != "FAILED" || deref(last.Error) != app.ErrBalanceExhausted {
		t.Fatalf("reply %+v", last)
	}
	if c := need(e.svc.GetChat(e.ctx, e.org.ID, chat.ID)); c.Status != "FAILED" {
		t.Fatalf("chat status %s", c.Status)
	}
}

// TestWhatStopsARun: a member taking the chat, AI turned off and a newer contact message
// end the run under way: its message is CANCELED at once with the reason, the runner is
// told to stop at its next flush, and its final write only adds the usage (still charged).
func TestWhatStopsARun(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	off := false
	cases := []struct {
		name   string
		act    func(chat app.Chat)
		reason string
		next   bool // a new run waits after it
	}{
		{"a member takes the chat", func(c app.Chat) { e.patch(c.ID, app.ChatPatch{AssignedUserID: set(e.admin.Member.ID)}) },
			"canceled: a member took the chat", false},
		{"ai turned off", func(c app.Chat) { e.patch(c.ID, app.ChatPatch{AIEnabled: &off}) },
			"canceled: ai_enabled turned false", false},
		{"a newer contact message", func(c app.Chat) { e.say(c.ID, "user", "and another thing") },
			"canceled: a newer contact message superseded this reply", true},
	}
	for _, c := range cases {
		chat := e.assisted(app.ConversationConfig{ThreadMode: "new"})
		job := e.runFor(chat.ID, "hi")
		c.act(chat)
		m := e.message(chat.ID, job.MessageID)
		if m.Status != "CANCELED" || deref(m.Error) != c.reason {
			t.Fatalf("%s: message %s, %q", c.name, m.Status, deref(m.Error))
		}
		if stop := need(e.svc.FlushRun(e.ctx, job, "late text")); !stop {
			t.Fatalf("%s: the runner was not told to stop", c.name)
		}
		before := e.balance()
		e.must(e.svc.FinishRun(e.ctx, job, app.RunOutcome{Status: "COMPLETED", Text: "late reply",
			Turns: []app.TurnUsage{{Model: testModel, UsageCounter: app.UsageCounter{OutputTokens: 1000}}}}))
		m = e.message(chat.ID, job.MessageID)
		if m.Status != "CANCELED" || replyOf(m) != "" || m.Usage == nil || m.Usage.OutputTokens != 1000 || !near(e.balance(), before-0.01) {
			t.Fatalf("%s: after the runner's final write %+v, balance %v", c.name, m, e.balance())
		}
		e.clock.Advance(e.deps.RunPolicy.Debounce)
		if jobs := e.claimRuns("r1"); (len(jobs) == 1) != c.next {
			t.Fatalf("%s: next claim %+v", c.name, jobs)
		}
	}
}

func replyOf(m app.Message) string {
	s := ""
	for _, turn := range m.Messages {
		for _, p := range turn.Parts {
			s += p.Text
		}
	}
	return s
}

// TestCancelAndInterruptedRuns: a cancel drops a waiting run, ends one under way keeping its
// text (usage estimated from it), and is a conflict with nothing to cancel; a run whose
// runner is gone ends as interrupted when another claims.
func TestCancelAndInterruptedRuns(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	chat := e.assisted(app.ConversationConfig{ThreadMode: "new"})
	_, err := e.svc.CancelRun(e.ctx, e.org.ID, chat.ID)
	wantCode(t, "nothing to cancel", err, app.CodeConflict)
	e.say(chat.ID, "user", "hi")
	if m, err := e.svc.CancelRun(e.ctx, e.org.ID, chat.ID); m != nil || err != nil {
		t.Fatalf("cancel of a waiting run: %v, %v", m, err)
	}
	e.clock.Advance(time.Minute)
	if jobs := e.claimRuns("r1"); len(jobs) != 0 {
		t.Fatalf("a canceled waiting run started: %+v", jobs)
	}
	job := e.runFor(chat.ID, "again")
	need(e.svc.FlushRun(e.ctx, job, "partial answer"))
	m := need(e.svc.CancelRun(e.ctx, e.org.ID, chat.ID))
	if m.Status != "CANCELED" || replyOf(*m) != "partial answer" || m.Usage == nil || !m.Usage.Estimated ||
		m.Usage.OutputTokens != app.EstimateTokens("partial answer") {
		t.Fatalf("canceled message %+v", m)
	}
	// r1 dies mid-run; r2's claim ends its run as interrupted.
	job = e.runFor(chat.ID, "third")
	need(e.svc.FlushRun(e.ctx, job, "half"))
	e.claimRuns("r2")
	m2 := e.message(chat.ID, job.MessageID)
	if m2.Status != "FAILED" || deref(m2.Error) != app.ErrInterrupted || replyOf(m2) != "half" {
		t.Fatalf("orphan %+v", m2)
	}
	_, err = e.svc.CancelRun(e.ctx, e.org.ID, "chat_nope")
	wantCode(t, "unknown chat", err, app.CodeNotFound)
}

// TestToolEffects: the built-in tools' changes apply with a COMPLETED reply only:
// transfer_to_human turns AI off, leaves a note and emits chat.assigned (with the default
// handoff text when the model wrote none), end_conversation closes, block_contact blocks
// through the opt-out path, save_memory keeps a memory.
func TestToolEffects(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	w := e.hook()
	type outcome struct {
		aiOn, closed, blocked bool
		notes, memories       int
		assigned              int
		text                  string
	}
	cases := []struct {
		name   string
		status string
		effect app.ToolEffect
		want   outcome
	}{
		{"transfer to a human", "COMPLETED", app.ToolEffect{Tool: app.ToolTransferToHuman, Reason: "asks for a person", Summary: "billing"},
			outcome{aiOn: false, notes: 1, assigned: 1, text: app.DefaultHandoffMessage}},
		{"end the conversation", "COMPLETED", app.ToolEffect{Tool: app.ToolEndConversation}, outcome{aiOn: true, closed: true}},
		{"block the contact", "COMPLETED", app.ToolEffect{Tool: app.ToolBlockContact}, outcome{aiOn: true, blocked: true}},
		{"save a memory", "COMPLETED", app.ToolEffect{Tool: app.ToolSaveMemory,
			Memory: &app.MemoryInput{Type: "PREFERENCE", Importance: ptr(0.8), Content: "prefers email"}}, outcome{aiOn: true, memories: 1}},
		{"a failed reply applies nothing", "FAILED", app.ToolEffect{Tool: app.ToolEndConversation}, outcome{aiOn: true}},
	}
	for _, c := range cases {
		chat := e.assisted(app.ConversationConfig{ThreadMode: "new"})
		job := e.runFor(chat.ID, "hi")
		before := e.events(w)[app.EventChatAssigned]
		e.must(e.svc.FinishRun(e.ctx, job, app.RunOutcome{Status: c.status, Effects: []app.ToolEffect{c.effect}}))
		got := need(e.svc.GetChat(e.ctx, e.org.ID, chat.ID))
		ct := need(e.svc.GetContact(e.ctx, e.org.ID, chat.ContactID))
		notes := need(e.svc.ListNotes(e.ctx, e.org.ID, ct.ID, app.Page{Page: 1, Take: 10}))
		mems := need(e.svc.ListMemories(e.ctx, e.org.ID, ct.ID, "", app.Page{Page: 1, Take: 10}))
		have := outcome{aiOn: got.State.AIEnabled, closed: got.State.State == "CLOSED", blocked: ct.Blocked,
			notes: notes.Total, memories: len(mems.Items), assigned: e.events(w)[app.EventChatAssigned] - before,
			text: replyOf(e.message(chat.ID, job.MessageID))}
		if have != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, have, c.want)
		}
	}
}

// TestAutoResolveAndRating: a chat whose contact stays silent AutoResolveAfter past the
// assistant's answer is closed (not one where a member took over); with enable_auto_csat the
// close asks for a rating, and the contact's answer sets csat_score and starts no run.
func TestAutoResolveAndRating(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	conv := app.ConversationConfig{ThreadMode: "new", EnableAutoResolve: true, EnableAutoCSAT: true}
	quiet, taken := e.assisted(conv), e.assisted(conv)
	e.say(quiet.ID, "user", "hello")
	e.say(taken.ID, "user", "hello")
	e.clock.Advance(e.deps.RunPolicy.Debounce)
	jobs := e.claimRuns("r1")
	if len(jobs) != 2 {
		t.Fatalf("claimed %d runs", len(jobs))
	}
	for _, job := range jobs {
		e.must(e.svc.FinishRun(e.ctx, job, app.RunOutcome{Status: "COMPLETED", Text: "Done, anything else."}))
	}
	e.patch(taken.ID, app.ChatPatch{AssignedUserID: set(e.admin.Member.ID)})
	e.clock.Advance(e.deps.Automation.AutoResolveAfter - time.Second)
	if n := need(e.svc.AutoResolveChats(e.ctx)); n != 0 {
		t.Fatalf("closed %d chats before the silence was long enough", n)
	}
	e.clock.Advance(time.Second)
	if n := need(e.svc.AutoResolveChats(e.ctx)); n != 1 {
		t.Fatalf("closed %d chats, want the quiet one", n)
	}
	if c := need(e.svc.GetChat(e.ctx, e.org.ID, taken.ID)); c.State.State != "OPEN" {
		t.Fatalf("a member's chat was closed")
	}
	c := need(e.svc.GetChat(e.ctx, e.org.ID, quiet.ID))
	if c.State.State != "CLOSED" || c.LastMessage == nil || replyOf(*c.LastMessage) != app.CSATQuestion {
		t.Fatalf("closed chat %s, last message %+v", c.State.State, c.LastMessage)
	}
	for _, a := range []struct {
		text  string
		score *int
		run   bool
	}{{"5 stars!", ptr(5), false}, {"3", ptr(5), true}} { // the question is answered once
		e.say(quiet.ID, "user", a.text)
		c := need(e.svc.GetChat(e.ctx, e.org.ID, quiet.ID))
		if (c.State.CSATScore == nil) != (a.score == nil) || (a.score != nil && *c.State.CSATScore != *a.score) {
			t.Fatalf("after %q: csat %v", a.text, c.State.CSATScore)
		}
		e.clock.Advance(e.deps.RunPolicy.Debounce)
		if jobs := e.claimRuns("r1"); (len(jobs) == 1) != a.run {
			t.Fatalf("after %q: runs %+v", a.text, jobs)
		}
	}
}
