import UploadEngine
import UploadPlan

/// What can happen to the model: input, engine events, and the answers to
/// effects the app carried out.
public enum Message: Sendable {
    case key(Key)
    case resize(Size)
    case engine(UploadEvent)
    /// A directory was read for the file browser.
    case listed(directory: String, entries: [DirectoryEntry])
    case listingFailed(directory: String, error: String)
    /// Files were checked (stat) and can be staged; `problems` name those that cannot.
    /// `folders`: what each folder staged gave, and left out ("photos/: 12 files (2 hidden left out)").
    case staged([StagedFile], problems: [String], folders: [String] = [])
    /// The engine refused a request before sending it.
    case uploadRefused(String)
    /// SIGINT, SIGTERM or SIGHUP.
    case interrupted
    /// The history file was read (newest last, as in the file), or could not be.
    case historyLoaded([HistoryItem], error: String?)
    /// Something the app has to say, e.g. that the journal cannot be written.
    case notice(Notice)
    /// The profiles file was read for the picker, or could not be.
    case profilesLoaded([ProfileSummary], path: String, error: String?)
    /// A profile was loaded (its `${VAR}`s expanded) to replace the target, fields and headers.
    /// Indirect: a target inline made every message (10,000 engine events at a time) 400 bytes.
    indirect case profileLoaded(name: String, target: Target, entries: [FormEntry], concurrency: Int?)
    /// "Save as profile" wrote the profile, or refused to.
    case profileSaved(name: String, path: String, error: String?)
}

/// What `update` asks the app to do. The model never does I/O itself.
public enum Effect: Sendable, Hashable {
    /// `chained`: each request runs after the one before it succeeded.
    case upload([UploadRequest], chained: Bool)
    /// Cancel these tasks together: none starts in a slot another frees.
    case cancel([TaskID])
    /// Stop one task, keeping what a resumable upload has on the server; `retry` goes on.
    case pauseTask(TaskID)
    case retry(TaskID)
    /// Move a queued task up, down or to the front of the queue.
    case move(TaskID, UploadEngine.QueueMove)
    case pause
    case resume
    case setConcurrency(Int)
    /// Bytes per second over every upload; nil for no limit.
    case setLimitRate(Int64?)
    /// Read a directory for the browser; answer with `.listed` or `.listingFailed`.
    case list(directory: String)
    /// Check these paths and answer with `.staged`, each file in the form field `field`.
    case stage(paths: [String], field: String)
    /// Read the history file and answer with `.historyLoaded`.
    case loadHistory
    /// Queue every interrupted task that can be resumed as it is.
    case resumeInterrupted
    /// Read the profiles file for the picker; answer with `.profilesLoaded`.
    case loadProfiles
    /// Load a profile over the current target; answer with `.profileLoaded` or a `.notice`.
    case applyProfile(String)
    /// Add a profile to the profiles file; answer with `.profileSaved`.
    case saveProfile(name: String, target: Target, entries: [FormEntry])
    /// Cancel every unfinished task and end the program.
    case quit
}
