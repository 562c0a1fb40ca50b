import ArgumentParser
import CLinux
import FormData
import Glibc
import NIOCore
import UploadEngine
import WireRules

/// Exit statuses, documented in docs/GUIDE.md.
enum ExitStatus: Int32 {
    case ok = 0
    /// At least one upload failed or was cancelled.
    case uploadFailed = 1
    /// Bad input: syntax, a missing or unreadable file, a bad URL. Nothing was sent.
    case badInput = 2
    case interrupted = 130
}

/// Bad input, reported before any request is sent.
struct BadInput: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

@main
struct Hoist: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hoist",
        abstract: "A keyboard-driven terminal upload manager.",
        version: "0.1.0",
        subcommands: [
            TUICommand.self, SendCommand.self, ResumeCommand.self, ReceiveCommand.self, DemoCommand.self,
            HistoryCommand.self,
        ],
        defaultSubcommand: TUICommand.self
    )

    /// Parses with Hoist's own exit statuses: 2 for any bad input.
    static func main() async {
        // Half the cores move bytes, the rest run the engine, hashing and the
        // monitors: on 2 cores a second event loop only competed with them
        // (1,000 small uploads went from 2.2x curl's time to 1.76x).
        NIOSingletons.groupLoopCountSuggestion = max(1, System.coreCount / 2)
        // glibc gives each thread that allocates an arena of its own, up to 8
        // per core, and keeps what they free: one arena per core held 10,000
        // queued uploads in 99 MB instead of 118 MB.
        mallopt(M_ARENA_MAX, Int32(max(2, System.coreCount)))
        let given = Array(CommandLine.arguments.dropFirst())
        argumentSecrets = ArgumentSecrets(given)
        argumentSecrets.blankProcessArguments()
        let arguments = ArgumentRewriter.rewrite(given)
        if arguments.first == SendCommand._commandName { Prewarm.start() }
        do {
            var command = try parseCommand(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let exit as ExitCode {
            Glibc.exit(exit.rawValue)
        } catch let bad as BadInput {
            printError("hoist: \(bad)")
            Glibc.exit(ExitStatus.badInput.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                let message = fullMessage(for: error)
                // The target options are the table's, which argument-parser does not list.
                let takesTargetOptions = ["USAGE: hoist send", "USAGE: hoist tui", "USAGE: hoist [<"].contains {
                    message.contains($0)
                }
                print(message + (takesTargetOptions ? "\n" + TargetOptions.help + "\n" : ""))
                Glibc.exit(0)
            }
            printError(fullMessage(for: error))
            Glibc.exit(ExitStatus.badInput.rawValue)
        }
    }
}

/// `hoist send ...` is parsed by `SendCommand` alone: from the root, the
/// root's and the default subcommand's options were reflected too, and
/// SendCommand's once more (about 1.6 ms of a 23 ms one-file send). Anything
/// the direct parse refuses (a bad option, `--help`) is parsed again from the
/// root, so errors and help read exactly as before.
private func parseCommand(_ arguments: [String]) throws -> any ParsableCommand {
    if arguments.first == SendCommand._commandName,
        let send = try? SendCommand.parse(Array(arguments.dropFirst()))
    {
        return send
    }
    return try Hoist.parseAsRoot(arguments)
}

/// Work every `hoist send` does once its arguments are parsed, started on
/// another core while this one parses them (about a quarter of a one-file
/// send): the transport's event loop and configuration, and the journal's
/// first encoding of a request. Only the process's own state is touched.
enum Prewarm {
    static func start() {
        DetachedThread.start {
            UploadEngine.prewarm()
            let request = UploadRequest(url: "http://localhost/", body: .multipart(MultipartForm()))
            _ = try? JSONValue(encoding: request)
        }
    }
}

/// The command line's secrets, set once at start, before any other thread runs.
nonisolated(unsafe) var argumentSecrets = ArgumentSecrets([])

/// Every message Hoist writes to stderr: the command line's secrets masked,
/// and what a terminal would act on (a server's escape sequences, a
/// filename's controls) shown escaped.
func printError(_ message: String) {
    let line = Array((shown(message) + "\n").utf8)
    _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// A line of text to stdout, as `printError` shows it.
func printLine(_ text: String) {
    writeOut(Array((shown(text) + "\n").utf8))
}

private func shown(_ text: String) -> String {
    TerminalText.escaped(argumentSecrets.masked(text), keepingLines: true)
}

func writeOut(_ bytes: [UInt8]) { writeAll(bytes, to: STDOUT_FILENO) }

func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
    var done = 0
    while done < bytes.count {
        let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + done, bytes.count - done) }
        if count <= 0 { return }
        done += count
    }
}
