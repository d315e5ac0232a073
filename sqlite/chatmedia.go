package sqlite

import "wsapi/app"

const fileColumns = `id, chat_id, COALESCE(message_id, ''), filename, path, mimetype, size, url, created_at`

func scanFile(r rowScanner, extra ...any) (app.ChatFile, error) {
	var f app.ChatFile
	dest := append([]any{&f.ID, &f.ChatID, &f.MessageID, &f.FileFilename, &f.FilePath, &f.FileMimetype, &f.FileSize,
		&f.FileURL, &f.CreatedAt}, extra...)
	return f, r.Scan(dest...)
}

// CreateFile stores a chat file with its bytes.
func (t *Tx) CreateFile(orgID string, f app.ChatFile) error {
	_, err := t.exec(`INSERT INTO chat_files (id, org_id, chat_id, message_id, filename, path, mimetype, size, url, data, created_at)
		VALUES (?,?,?,?,?,?,?,?,?,?,?)`, f.ID, orgID, f.ChatID, nullable(f.MessageID), f.FileFilename, f.FilePath,
		f.FileMimetype, f.FileSize, f.FileURL, f.Data, f.CreatedAt)
	return err
}

// GetFile reads a chat file with its bytes.
func (t *Tx) GetFile(orgID, chatID, id string) (app.ChatFile, error) {
	var data []byte
	f, err := scanFile(t.row(`SELECT `+fileColumns+`, data FROM chat_files WHERE org_id = ? AND chat_id = ? AND id = ?`,
		orgID, chatID, id), &data)
	f.Data = data
	return f, one(err, "file")
}

// ListFiles lists a chat's files, newest first, by filename substring and MIME prefix.
func (t *Tx) ListFiles(orgID, chatID, search, mimetype string, p app.Page) ([]app.ChatFile, int, error) {
	where := `org_id = ?1 AND chat_id = ?2 AND (?3 = '' OR filename LIKE ?3 ESCAPE '\')
		AND (?4 = '' OR substr(mimetype, 1, length(?4)) = ?4)`
	args := []any{orgID, chatID, likePattern(search), mimetype}
	scan := func(r rowScanner) (app.ChatFile, error) { return scanFile(r) }
	return listPage(t, scan, p, `SELECT COUNT(*) FROM chat_files WHERE `+where,
		`SELECT `+fileColumns+` FROM chat_files WHERE `+where+` ORDER BY created_at DESC, id DESC
		LIMIT ?5 OFFSET ?6`,
		args...)
}
