// The longest message a visitor may send, on the widget and on every channel: the panel counts towards it,
// the widget's server refuses past it, and a channel (where nothing can be refused back) cuts at it.
export const CHAT_MESSAGE_MAX = 2000;
