package topology

// MaxFileSize bounds the size of an edge-list file: an edge-list file for the
// graphs the tools can check is a few kilobytes, and the bound keeps a
// mistaken path (/dev/zero, a log file) from filling memory.
const MaxFileSize = 1 << 20
