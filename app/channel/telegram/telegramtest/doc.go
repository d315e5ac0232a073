// Package telegramtest is a local Telegram Bot API server for tests: the real request paths
// (/bot<token>/<method>, /file/bot<token>/<file_path>), JSON, form and multipart parameters,
// and the documented answers ({"ok":true,"result":...}, and {"ok":false,"error_code",
// "description","parameters":{"retry_after"}} with the same HTTP status). It keeps what bots
// were told (webhooks, messages, chat actions, uploads) and delivers updates to a webhook
// the way Telegram does (POST of the JSON Update with X-Telegram-Bot-Api-Secret-Token).
package telegramtest
