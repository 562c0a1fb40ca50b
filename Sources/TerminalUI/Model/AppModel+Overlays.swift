import UploadEngine
import UploadPlan

extension AppModel {
    mutating func handle(_ key: Key, in overlay: Overlay) -> [Effect] {
        switch overlay {
        case .help(let scroll):
            switch key {
            case .down, .character("j"): self.overlay = .help(scroll: scroll + 1)
            case .up, .character("k"): self.overlay = .help(scroll: max(0, scroll - 1))
            case .pageDown, .character(" "): self.overlay = .help(scroll: scroll + 10)
            case .pageUp: self.overlay = .help(scroll: max(0, scroll - 10))
            default: self.overlay = nil
            }
            return []
        case .value(let title, let text, let scroll):
            let step: Int
            switch key {
            case .down, .character("j"): step = 1
            case .up, .character("k"): step = -1
            case .pageDown, .character(" "): step = 10
            case .pageUp: step = -10
            default:
                self.overlay = nil
                return []
            }
            let last = ValueView.bottom(text, size: size)
            self.overlay = .value(title: title, text: text, scroll: max(0, min(last, scroll + step)))
            return []
        case .restage(let item):
            self.overlay = nil
            switch key {
            case .character("r"), .character("R"):
                files = []
                clampCursor(.files)
                return rerun(item)
            case .character("a"), .character("A"), .enter:
                return rerun(item)
            default:
                return []
            }
        case .confirmQuit:
            switch key {
            case .character("y"), .character("Y"), .enter:
                quitting = true
                self.overlay = nil
                return [.quit]
            default:
                self.overlay = nil
                return []
            }
        case .editor(var form):
            switch key {
            case .escape:
                self.overlay = nil
            case .enter where form.purpose == .saveProfile:
                let name = form.value("Name").trimmingSpaces
                guard !name.isEmpty,
                    name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
                else {
                    form.error = "a profile name is letters, digits, - and _"
                    self.overlay = .editor(form)
                    return []
                }
                self.overlay = nil
                var saved = target
                saved.concurrency = queue.concurrency
                saved.limitRate = queue.limitRate ?? 0
                return [.saveProfile(name: name, target: saved, entries: entries)]
            case .enter:
                if let error = save(form) {
                    form.error = error
                    self.overlay = .editor(form)
                } else {
                    self.overlay = nil
                }
            default:
                form.handle(key)
                self.overlay = .editor(form)
            }
            return []
        case .browser(var browser):
            let effects = handle(key, in: &browser)
            if case .browser = self.overlay { self.overlay = .browser(browser) }
            return effects
        case .history(var history):
            if var input = history.filterInput {
                // Typing the filter: the list follows each key; Enter keeps it, Esc drops it.
                switch key {
                case .enter: history.filterInput = nil
                case .escape:
                    history.filterInput = nil
                    history.setFilter("")
                default:
                    if input.handle(key) {
                        history.filterInput = input
                        history.setFilter(input.text)
                    }
                }
                self.overlay = .history(history)
                return []
            }
            if history.handleMove(key, listHeight: HistoryView.listHeight(for: size, history)) {
                self.overlay = .history(history)
                return []
            }
            switch key {
            case .character("/"):
                history.filterInput = TextInput(history.filter)
                self.overlay = .history(history)
                return []
            case .escape where !history.filter.isEmpty:
                history.setFilter("")
                self.overlay = .history(history)
                return []
            case .enter:
                guard let item = history.selected else { return [] }
                // Files staged already: the user says whether these replace them or join them.
                if files.isEmpty || item.files.isEmpty {
                    self.overlay = nil
                    return rerun(item)
                }
                self.overlay = .restage(item)
                return []
            default:
                self.overlay = nil
                return []
            }
        case .profiles(var picker):
            if picker.handleMove(key, listHeight: ProfilesView.listHeight(for: size)) {
                self.overlay = .profiles(picker)
                return []
            }
            switch key {
            case .enter:
                guard let item = picker.selected else { return [] }
                self.overlay = nil
                return [.applyProfile(item.name)]
            default:
                self.overlay = nil
                return []
            }
        }
    }

    /// Aims the target at the item's URL and method and stages its files
    /// again; `u` then sends them with the fields and headers staged now.
    private mutating func rerun(_ item: HistoryItem) -> [Effect] {
        target.url = item.url
        target.method = item.method
        guard !item.files.isEmpty else {
            notice = Notice("target set to \(item.method.rawValue) \(item.url); that upload sent no files")
            return []
        }
        // Marked as they arrive: u then sends exactly these, whatever else is staged.
        for index in files.indices { files[index].marked = false }
        marksWhenStaged = Set(item.files.map(\.path))
        return item.files.map { .stage(paths: [$0.path], field: $0.field) }
    }

    // MARK: File browser

    private mutating func handle(_ key: Key, in browser: inout FileBrowser) -> [Effect] {
        if browser.isEditingGlob {
            switch key {
            case .enter, .escape: browser.isEditingGlob = false
            default: _ = browser.glob.handle(key)
            }
            browser.cursor = min(browser.cursor, max(0, browser.visibleEntries.count - 1))
            return []
        }
        let visible = browser.visibleEntries
        let height = max(1, browserListHeight)
        func open(_ path: String) -> [Effect] {
            browser.directory = path
            browser.entries = nil
            browser.cursor = 0
            browser.scroll = 0
            return [.list(directory: path)]
        }
        switch key {
        case .escape, .character("q"):
            overlay = nil
            return []
        case .up, .character("k"): browser.cursor = max(0, browser.cursor - 1)
        case .down, .character("j"): browser.cursor = min(max(0, visible.count - 1), browser.cursor + 1)
        case .pageUp: browser.cursor = max(0, browser.cursor - height)
        case .pageDown: browser.cursor = min(max(0, visible.count - 1), browser.cursor + height)
        case .home, .character("g"): browser.cursor = 0
        case .end, .character("G"): browser.cursor = max(0, visible.count - 1)
        case .backspace, .left, .character("h"):
            return open(FileBrowser.parent(of: browser.directory))
        case .character("."):
            browser.showHidden.toggle()
            browser.cursor = min(browser.cursor, max(0, browser.visibleEntries.count - 1))
        case .character("/"):
            browser.isEditingGlob = true
        case .character(" "):
            // Marks and moves down, as Space does in the Files pane.
            // A folder is marked whole: staged, it gives every file under it.
            guard let entry = visible[safe: browser.cursor], entry.name != ".." else { break }
            let path = browser.path(of: entry)
            if let index = browser.marked.firstIndex(of: path) {
                browser.marked.remove(at: index)
            } else {
                browser.marked.append(path)
                if entry.isDirectory {
                    notice = Notice("marked \(entry.name)/: a stages every file under it")
                }
            }
            browser.cursor = min(max(0, visible.count - 1), browser.cursor + 1)
        case .character("*"):
            // Files only: a folder's whole tree is marked one at a time, with Space.
            let paths = visible.filter { !$0.isDirectory }.map(browser.path(of:))
            let folders = visible.filter { $0.isDirectory && $0.name != ".." }.count
            let allMarked = paths.allSatisfy(browser.marked.contains)
            browser.marked.removeAll(where: paths.contains)
            if !allMarked { browser.marked += paths }
            let files = Target.count(paths.count, "file")
            let left =
                folders == 0 ? "" : " (not the \(Target.count(folders, "folder")): Space marks a folder whole)"
            notice = Notice((allMarked ? "unmarked " : "marked ") + files + left)
        case .enter, .right, .character("l"):
            guard let entry = visible[safe: browser.cursor] else { break }
            if entry.isDirectory { return open(browser.path(of: entry)) }
            if key != .enter { break }
            let paths = browser.marked.isEmpty ? [browser.path(of: entry)] : browser.marked
            overlay = nil
            return [.stage(paths: paths, field: target.fileField)]
        case .character("a"):
            guard !browser.marked.isEmpty else { break }
            overlay = nil
            return [.stage(paths: browser.marked, field: target.fileField)]
        default:
            break
        }
        if browser.cursor < browser.scroll { browser.scroll = browser.cursor }
        if browser.cursor >= browser.scroll + height { browser.scroll = browser.cursor - height + 1 }
        return []
    }

    /// Rows of entries the browser overlay shows at this size.
    var browserListHeight: Int { BrowserView.listHeight(for: size) }

    // MARK: Editor forms

    func entryForm(_ purpose: EditorForm.Purpose) -> EditorForm {
        switch purpose {
        case .newEntry(let kind):
            var form = EditorForm(
                purpose: purpose, title: kind == .field ? "Add a field" : "Add a header",
                rows: [.init("Name", text: ""), .init("Value", text: "", hint: Self.revealHint)])
            form.secretKind = kind
            return form
        case .editEntry(let index):
            let entry = entries[index]
            var form = EditorForm(
                purpose: purpose, title: entry.kind == .field ? "Edit field" : "Edit header",
                rows: [.init("Name", text: entry.name), .init("Value", text: entry.value, hint: Self.revealHint)])
            form.secretKind = entry.kind
            form.wasSecret = entry.isSecret
            return form
        default:
            return EditorForm(purpose: purpose, title: "", rows: [])
        }
    }

    static let revealHint = "a secret-looking name masks the value: Ctrl-R shows or hides it"

    func fileForm(_ file: StagedFile) -> EditorForm {
        EditorForm(
            purpose: .editFile(id: file.id), title: "Edit " + file.baseName,
            rows: [
                .init("Field", text: file.fieldName),
                .init("Filename", text: file.filename ?? "", hint: "default: " + file.baseName),
                .init("Type", text: file.contentType ?? "", hint: "default: " + file.detectedType),
            ])
    }

    /// How a staged image is prepared; `nil` when it goes as it is.
    public func imageSettings(for file: StagedFile) -> ImageSettings? {
        switch file.images {
        case .likeTarget: return target.images
        case .own(let settings): return settings
        case .asIs: return nil
        }
    }

    /// The `I` dialog: in the Files pane, for the marked files or the one
    /// under the cursor; elsewhere, for every image.
    func imageForm() -> EditorForm {
        let marked = files.filter(\.marked)
        let chosen = focus != .files || files.isEmpty ? [] : marked.isEmpty ? [files[cursor(.files)]] : marked
        guard let first = chosen.first else { return ImageForm.make(target.images) }
        let scope = chosen.count == 1 ? first.baseName : "\(chosen.count) marked files"
        return ImageForm.make(imageSettings(for: first), files: chosen.map(\.id), scope: scope)
    }

    /// Applies a form; returns why it cannot be saved, if so.
    private mutating func save(_ form: EditorForm) -> String? {
        switch form.purpose {
        case .newEntry, .editEntry:
            let kind: FormEntry.Kind
            switch form.purpose {
            case .editEntry(let index): kind = entries[index].kind
            case .newEntry(let newKind): kind = newKind
            default: return nil
            }
            let name = form.value("Name").trimmingSpaces
            let value = form.value("Value")
            guard !name.isEmpty else { return "the name is empty" }
            if kind == .header {
                do throws(TargetValueError) {
                    _ = try TargetValue.header(name: name, value: value)
                } catch {
                    return error.description
                }
            }
            if case .editEntry(let index) = form.purpose {
                let wasSecret = entries[index].isSecret
                entries[index].name = name
                entries[index].value = value
                entries[index].isSecret = wasSecret || FormEntry.looksSecret(kind: kind, name: name)
            } else {
                entries.append(FormEntry(kind: kind, name: name, value: value))
                cursor[.fields] = entries.count - 1
                keepCursorVisible(.fields)
            }
        case .editFile(let id):
            guard let index = files.firstIndex(where: { $0.id == id }) else { return nil }
            let field = form.value("Field")
            guard !field.isEmpty else { return "the field name is empty" }
            let type = form.value("Type").trimmingSpaces
            if !type.isEmpty, !type.contains("/") { return "a type looks like image/jpeg" }
            files[index].fieldName = field
            files[index].filename = form.value("Filename").isEmpty ? nil : form.value("Filename")
            files[index].contentType = type.isEmpty ? nil : type
        case .saveProfile:
            return nil  // handled with its effect in `handle(_:in:)`
        case .target:
            switch TargetForm.target(from: form, over: target) {
            case .success(let edited):
                // Another URL is no longer the profile's target: the top bar stops naming it.
                if edited.url != target.url { profile = nil }
                target = edited
            case .failure(let refusal): return refusal.description
            }
        case .images(let ids):
            let settings: ImageSettings?
            switch ImageForm.settings(from: form) {
            case .success(let chosen): settings = chosen
            case .failure(let refusal): return refusal.description
            }
            if ImageForm.isForEveryImage(form) {
                target.images = settings
                for index in files.indices { files[index].images = .likeTarget }
            } else {
                for index in files.indices where ids.contains(files[index].id) {
                    files[index].images = settings == target.images ? .likeTarget : settings.map { .own($0) } ?? .asIs
                }
                let scope = form.value("For")
                notice = Notice(scope + ": " + (settings.map { Bars.imageSummary($0) } ?? "sent as is"))
            }
        }
        return nil
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
