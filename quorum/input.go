package quorum

// MaxFileSize bounds the size of a quorum file: a quorum file for the
// largest N the tools accept is a few kilobytes, and the bound keeps a
// mistaken path (/dev/zero, a log file) from filling memory.
const MaxFileSize = 1 << 20
