package app

import "context"

// ClaimKnowledge takes the next contents to process, as many as room allows (looking on a
// reader first, so an idle processor does not take the writer).
func (s *Service) ClaimKnowledge(ctx context.Context, room ClaimRoom) (ks []KnowledgeContent, err error) {
	now := s.now()
	if due, err := s.anyDue(ctx, room, func(tx Tx) (bool, error) { return tx.AnyKnowledgeDue(now) }); !due {
		return nil, err
	}
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if ks, err = tx.ClaimKnowledge(now, At(now.Add(KnowledgeLease)), room); err != nil {
			return err
		}
		for i := range ks {
			// A content taken again after a crash starts over from nothing.
			if err := tx.ResetKnowledge(ks[i].ID); err != nil {
				return err
			}
			ks[i].ChunksCount, ks[i].ChunksProcessed, ks[i].Children = 0, 0, nil
		}
		return nil
	})
	if err != nil || len(ks) == 0 {
		return nil, err
	}
	err = s.d.Store.Read(ctx, func(tx Tx) (err error) {
		for i := range ks {
			if ks[i].Type == "FILE" {
				if ks[i].Data, err = tx.GetKnowledgeData(ks[i].ID); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return ks, err
}

// SaveChunks stores the chunks of a content, moving chunks_count and chunks_processed.
func (s *Service) SaveChunks(ctx context.Context, k *KnowledgeContent, texts []string) error {
	return s.d.Store.Write(ctx, func(tx Tx) error {
		first := k.ChunksProcessed
		if err := tx.AddChunks(*k, first, texts); err != nil {
			return err
		}
		k.ChunksProcessed += len(texts)
		k.UpdatedAt = s.now()
		return tx.SetKnowledgeProgress(*k)
	})
}

// SetChunkTotal records how many chunks a content will have, before they are stored.
func (s *Service) SetChunkTotal(ctx context.Context, k *KnowledgeContent, n int) error {
	k.ChunksCount, k.UpdatedAt = n, s.now()
	return s.d.Store.Write(ctx, func(tx Tx) error { return tx.SetKnowledgeProgress(*k) })
}

// FinishKnowledge ends processing: PROCESSED, or FAILED with the reason.
func (s *Service) FinishKnowledge(ctx context.Context, k *KnowledgeContent, failure error) error {
	k.Status, k.Error, k.UpdatedAt = "PROCESSED", nil, s.now()
	if failure != nil {
		msg := failure.Error()
		k.Status, k.Error = "FAILED", &msg
	}
	return s.d.Store.Write(ctx, func(tx Tx) error { return tx.SetKnowledgeProgress(*k) })
}

// AddCrawledPage records a page of a crawl as a child content, PROCESSING until its chunks
// are stored.
func (s *Service) AddCrawledPage(ctx context.Context, parent KnowledgeContent, pageURL, title string, size int64) (KnowledgeContent, error) {
	now := s.now()
	pid := parent.ID
	k := KnowledgeContent{ID: NewID("kc"), OrgID: parent.OrgID, AssistantID: parent.AssistantID, Title: title, Type: "URL",
		Content: KnowledgeBody{Type: "URL", URL: pageURL, MaxPages: 1}, Size: size, Status: "PROCESSING",
		CreatedAt: now, UpdatedAt: now, ParentContentID: &pid}
	err := s.d.Store.Write(ctx, func(tx Tx) error { return tx.CreateKnowledge(k) })
	return k, err
}
