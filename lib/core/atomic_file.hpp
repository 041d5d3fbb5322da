// Files the tools and the library write for the user (perf-db, find-db, reports): written to a
// temporary file in the same folder and renamed over the target, so a reader sees the old file
// or the new one, never half of one; updates of a shared database run under an advisory lock.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <ostream>
#include <string>

namespace dnncompat::files {

// Writes text to path atomically (temporary file + fsync + rename), creating the parent
// folders. Throws std::runtime_error naming the path on failure; the old file stays intact.
// A symbolic link is followed (its target is replaced); a device, FIFO or socket (/dev/null,
// /dev/stdout) is written in place, never replaced; a directory is refused. A new file gets
// 0666 minus the umask, a replaced file keeps its permissions.
void write_atomically(const std::string &path, const std::string &text);

// What every tool's output option (-o, --json) does with its argument: "-" writes text to
// standard output (and flushes it), anything else is write_atomically(path, text) into a folder
// that exists (require_folder_of: a mistyped folder is not created). Throws std::runtime_error
// naming the path, or "standard output", on failure.
void write_output(const std::string &path, const std::string &text);

// Throws std::runtime_error naming path unless the folder it names (if any) exists: the check of
// a file a user named for a tool to write, which creates no folder of the user's.
void require_folder_of(const std::string &path);

// A file written piece by piece (a trace imported call by call) and put in place as
// write_atomically does: the text goes to a temporary file next to the target and commit()
// renames it over the target; destroyed without commit() (an error on the way), the writer
// removes the temporary file and the old file stays intact. A device, FIFO or socket
// (/dev/stdout, /dev/null, a pipe) is written in place as the text comes. The constructor and
// commit() throw std::runtime_error naming the path on failure.
class AtomicWriter {
public:
    explicit AtomicWriter(const std::string &path);
    ~AtomicWriter();
    AtomicWriter(const AtomicWriter &) = delete;
    AtomicWriter &operator=(const AtomicWriter &) = delete;

    // Where the text goes (buffered); a write error sets badbit and is reported by commit().
    std::ostream &stream();
    // Flushes the text, syncs it and renames the temporary file over the target.
    void commit();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Runs fn while holding an exclusive advisory lock (flock) on path + ".lock", so two processes
// updating one database serialise their read-modify-write. Throws std::runtime_error when the
// lock file cannot be created, and when something other than a regular file (a device, a pipe, a
// folder) is at path: nothing is locked beside it.
void with_lock(const std::string &path, const std::function<void()> &fn);

// Reads the whole file; false when it does not exist or cannot be read.
bool read_file(const std::string &path, std::string &text);

// Moves a corrupt file aside to path + ".corrupt", or where that exists (an earlier corrupt file,
// kept: it may hold what someone wants back) the first free of ".corrupt.2" ... ".corrupt.9"
// (all taken: ".corrupt.9" is replaced), and returns the new name; empty when the move failed or
// path is not a regular file (left where it is).
std::string set_aside(const std::string &path);

// A private temporary folder: mkdtemp(3) of prefix + "XXXXXX" under
// std::filesystem::temp_directory_path() ($TMPDIR, else /tmp), so mode 0700 and a name no other
// process holds; removed with everything in it when destroyed. The constructor throws
// std::runtime_error when the folder cannot be created.
class TempDir {
public:
    explicit TempDir(const std::string &prefix);
    ~TempDir();
    TempDir(const TempDir &) = delete;
    TempDir &operator=(const TempDir &) = delete;
    const std::filesystem::path &path() const { return path_; }

private:
    std::filesystem::path path_;
};

} // namespace dnncompat::files
