package app

import (
	"context"
	"slices"
	"strings"
)

// ChatPatch changes a chat; nullable fields tell absent from null.
type ChatPatch struct {
	Title          Optional[string] `json:"title"`
	Pinned         *bool            `json:"pinned"`
	Visibility     *string          `json:"visibility"`
	State          *string          `json:"state"`
	FollowUpAt     Optional[Time]   `json:"follow_up_at"`
	AIEnabled      *bool            `json:"ai_enabled"`
	CSATScore      Optional[int]    `json:"csat_score"`
	AssignedUserID Optional[string] `json:"assigned_user_id"`
}

func validateChatPatch(in ChatPatch) error {
	p := Problems{}
	if in.Title.Set && !in.Title.Null && CharCount(in.Title.Value) > 255 {
		p.Add("title", "must be at most 255 characters")
	}
	if in.Visibility != nil && !slices.Contains(Visibilities, *in.Visibility) {
		p.Add("visibility", "must be one of "+strings.Join(Visibilities, ", "))
	}
	if in.State != nil && !slices.Contains(ChatStates, *in.State) {
		p.Add("state", "must be one of "+strings.Join(ChatStates, ", "))
	}
	if in.CSATScore.Set && !in.CSATScore.Null && (in.CSATScore.Value < 0 || in.CSATScore.Value > 5) {
		p.Add("csat_score", "must be a whole number from 0 to 5")
	}
	return p.Err()
}

// UpdateChat applies a PATCH. A change of assignee goes through assign, which emits
// chat.assigned.
func (s *Service) UpdateChat(ctx context.Context, orgID, id string, in ChatPatch) (c Chat, err error) {
	if err := validateChatPatch(in); err != nil {
		return Chat{}, err
	}
	var stopped []string
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if c, err = tx.GetChat(orgID, id); err != nil {
			return err
		}
		stopped, err = s.patchChat(tx, &c, in, s.now())
		return err
	})
	if err == nil {
		s.abortRuns(stopped)
	}
	return c, err
}

// patchChat applies a validated patch to c inside tx: what a member's PATCH does, which the
// automation's close does too. It answers the messages of the runs it stopped.
func (s *Service) patchChat(tx Tx, c *Chat, in ChatPatch, now Time) ([]string, error) {
	was := c.State.State
	applyChatPatch(c, in)
	if was != "CLOSED" && c.State.State == "CLOSED" && !in.FollowUpAt.Set {
		c.State.FollowUpAt = Time{} // a closed chat gets no follow-up
	}
	to := c.AssignedUserID
	if in.AssignedUserID.Set {
		to = in.AssignedUserID.Value // "" when null
	}
	assigned := to != c.AssignedUserID
	if err := s.assign(tx, c, to, now); err != nil {
		return nil, err
	}
	stopped, err := s.stopRunsAfterPatch(tx, *c, in, assigned, now)
	if err != nil || was == "CLOSED" || c.State.State != "CLOSED" {
		return stopped, err
	}
	return stopped, s.chatClosed(tx, *c, now)
}

// stopRunsAfterPatch ends the chat's runs, discarding their replies, when a member takes
// the chat or ai_enabled turns false.
func (s *Service) stopRunsAfterPatch(tx Tx, c Chat, in ChatPatch, assigned bool, now Time) ([]string, error) {
	switch {
	case assigned && c.AssignedUserID != "":
		return s.stopRuns(tx, c, StopTaken, now)
	case in.AIEnabled != nil && !*in.AIEnabled:
		return s.stopRuns(tx, c, StopAIDisabled, now)
	}
	return nil, nil
}

func applyChatPatch(c *Chat, in ChatPatch) {
	if in.Title.Set {
		c.Title = in.Title.Ptr()
	}
	if in.Pinned != nil {
		c.Pinned = *in.Pinned
	}
	if in.Visibility != nil {
		c.Visibility = *in.Visibility
	}
	st := c.State
	if in.State != nil {
		st.State = *in.State
	}
	if in.FollowUpAt.Set {
		st.FollowUpAt = in.FollowUpAt.Value
	}
	if in.AIEnabled != nil {
		st.AIEnabled = *in.AIEnabled
	}
	if in.CSATScore.Set {
		st.CSATScore = in.CSATScore.Ptr()
	}
}

// assign saves a chat (with whatever else the caller changed on it) with its assignee set
// to member ("" unassigns) and reads it back into c. Every path that changes an assignee (a
// PATCH, the deletion of the member) goes through here, so each change of a chat that is not
// internal emits chat.assigned, carrying the chat as saved, in the same transaction.
func (s *Service) assign(tx Tx, c *Chat, member string, now Time) error {
	changed := member != c.AssignedUserID
	if changed && member != "" {
		if _, err := tx.GetMember(c.OrgID, member); err != nil {
			return err
		}
		if _, err := tx.EnsureChatMember(c.ID, member, ChatRoleAdmin, now); err != nil {
			return err
		}
	}
	if changed {
		c.AssignedUserID = member
		c.State.AssignedAt, c.State.AssignedUser = Time{}, nil
		if member != "" {
			c.State.AssignedAt = now
		}
	}
	c.UpdatedAt = now
	if err := tx.UpdateChat(*c); err != nil {
		return err
	}
	saved, err := tx.GetChat(c.OrgID, c.ID)
	if err != nil {
		return err
	}
	*c = saved
	if changed && !c.Internal() {
		if _, err = s.Emit(tx, c.OrgID, EventChatAssigned, *c); err != nil {
			return err
		}
	}
	return s.EmitStream(tx, c.OrgID, c.ID, StreamChatUpdated, *c)
}

// unassignAll unassigns every chat of a member that is about to go, each through assign.
func (s *Service) unassignAll(tx Tx, orgID, memberID string) error {
	ids, err := tx.ChatsAssignedTo(orgID, memberID)
	if err != nil {
		return err
	}
	for _, id := range ids {
		c, err := tx.GetChat(orgID, id)
		if err == nil {
			err = s.assign(tx, &c, "", s.now())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// MarkChatRead clears the unseen count of members and stamps the assignee's seen_at.
func (s *Service) MarkChatRead(ctx context.Context, orgID, id string) (c Chat, err error) {
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if c, err = tx.GetChat(orgID, id); err != nil {
			return err
		}
		c.State.AdminUnseenCount = 0
		if c.State.AssignedUser != nil {
			c.State.AssignedUser.SeenAt = s.now()
		}
		if err := tx.UpdateChat(c); err != nil {
			return err
		}
		if c, err = tx.GetChat(orgID, id); err != nil {
			return err
		}
		return s.EmitStream(tx, orgID, id, StreamChatUpdated, c)
	})
	return c, err
}
