package app

import "context"

// ClaimKnowledge takes the next content to process, or ok=false when there is none.
func (s *Service) ClaimKnowledge(ctx context.Context) (k KnowledgeContent, ok bool, err error) {
	now := s.now()
	err = s.Store.Write(ctx, func(tx Tx) error {
		k, err = tx.ClaimKnowledge(now, At(now.Add(KnowledgeLease)))
		if IsNotFound(err) {
			return nil
		}
		ok = err == nil
		if ok {
			// A content taken again after a crash starts over from nothing.
			err = tx.ResetKnowledge(k.ID)
			k.ChunksCount, k.ChunksProcessed, k.Children = 0, 0, nil
		}
		return err
	})
	if ok && k.Type == "FILE" {
		err = s.Store.Read(ctx, func(tx Tx) (err error) {
			k.Data, err = tx.GetKnowledgeData(k.ID)
			return err
		})
	}
	return k, ok, err
}

// SaveChunks stores the chunks of a content, moving chunks_count and chunks_processed.
func (s *Service) SaveChunks(ctx context.Context, k *KnowledgeContent, texts []string) error {
	return s.Store.Write(ctx, func(tx Tx) error {
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
	return s.Store.Write(ctx, func(tx Tx) error { return tx.SetKnowledgeProgress(*k) })
}

// FinishKnowledge ends processing: PROCESSED, or FAILED with the reason.
func (s *Service) FinishKnowledge(ctx context.Context, k *KnowledgeContent, failure error) error {
	k.Status, k.Error, k.UpdatedAt = "PROCESSED", nil, s.now()
	if failure != nil {
		msg := failure.Error()
		k.Status, k.Error = "FAILED", &msg
	}
	return s.Store.Write(ctx, func(tx Tx) error { return tx.SetKnowledgeProgress(*k) })
}

// AddCrawledPage records a page of a crawl as a child content, PROCESSING until its chunks
// are stored.
func (s *Service) AddCrawledPage(ctx context.Context, parent KnowledgeContent, pageURL, title string, size int64) (KnowledgeContent, error) {
	now := s.now()
	pid := parent.ID
	k := KnowledgeContent{ID: NewID("kc"), OrgID: parent.OrgID, AssistantID: parent.AssistantID, Title: title, Type: "URL",
		Content: KnowledgeBody{Type: "URL", URL: pageURL, MaxPages: 1}, Size: size, Status: "PROCESSING",
		CreatedAt: now, UpdatedAt: now, ParentContentID: &pid}
	err := s.Store.Write(ctx, func(tx Tx) error { return tx.CreateKnowledge(k) })
	return k, err
}
