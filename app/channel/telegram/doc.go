// Package telegram is the Telegram channel: a bot (its token sealed among the integration's
// secrets) talks to contacts through the Bot API (core.telegram.org/bots/api).
//
//   - Set-up (app.Connector): getMe checks the token, then setWebhook points the bot at
//     {public_url}/hooks/telegram/{asi} with a random secret_token, kept sealed as the
//     secret webhook_secret (made anew by POST .../rotate and by a new token); Remove
//     (app.Remover) calls deleteWebhook when the integration is deleted.
//   - Inbound (channel.Inbound, channel.MediaFetcher): the hook compares the
//     X-Telegram-Bot-Api-Secret-Token header in constant time; Parse reads private chats'
//     messages (text, the largest photo, documents, voice notes, captions; edits), each keyed
//     by its update_id; Fetch downloads a file with getFile and /file/bot<token>/<file_path>.
//   - Outbound (channel.Sender, channel.Typer): sendMessage in plain text (no parse_mode, so
//     nothing needs escaping: what the assistant wrote is what the contact reads), split at
//     4,096 characters; the files of a member's message with sendPhoto or sendDocument;
//     sendChatAction typing while a run works. A 429 becomes channel.RetryAfter with the
//     answer's parameters.retry_after; a 403 (the bot was blocked, the user deactivated)
//     becomes channel.Permanent with Telegram's description.
//
// The Bot API's base URL is channels.telegram.api_url (operator configuration, not a tenant's
// URL). The token is part of every request path: errors never carry the URL.
package telegram
