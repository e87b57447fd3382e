package dev.splice.patch;

import dev.splice.bat.BatTables;
import dev.splice.elf.ElfEditor;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Section;
import dev.splice.elf.Segment;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.stream.IntStream;

/**
 * Insertion, the BOLT way: every function that receives a fragment moves whole to a new code
 * section {@code .splice.text} in a new executable PT_LOAD segment; its original entry jumps to the
 * new copy; every reference known from the relocations that {@code --emit-relocs} kept is
 * retargeted; pc-relative code in the moved functions is re-encoded (with branch relaxation); the
 * symbols, the .eh_frame FDEs (and .eh_frame_hdr) follow; a .note.bolt_bat maps the new code back.
 * The program header table is rewritten with the new segments (every old entry stays).
 * Whatever Splice cannot prove correct is refused with a {@link PatchException}. See docs/patch.md.
 *
 * <p>This class runs the stages of one rewrite in order, each a class of its own that returns what
 * the next one needs: plan ({@link Planner}: the moved functions, decoded), layout
 * ({@link Layout}: addresses and branch forms), encode ({@link NewSectionEncoder}: the new code),
 * retarget ({@link ReferenceRetargeter} and {@link Trampolines}: patches of the old image), then
 * the metadata ({@link EhFrameRewriter}, {@link SymbolMover}, {@link BatBuilder}, {@link BuildIds}).
 */
final class Inserter {
    private Inserter() {}

    /** What the other core makes during a rewrite: the BAT note, the build-id hash begun over the new code. */
    private record SideWork(byte[] bat, MessageDigest codeHash) {}

    /** The binary with the fragments inserted (the input's bytes when there are none), without counters asked for. */
    static byte[] insert(ElfFile elf, List<Insertion> insertions) {
        return insert(elf, insertions, Counters.NONE);
    }

    /** The binary with the fragments inserted and the counters asked for (the input's bytes when there are neither). */
    static byte[] insert(ElfFile elf, List<Insertion> insertions, Counters counters) {
        if (insertions.isEmpty() && counters.slots() == 0) {
            return elf.toBytes();
        }
        Input.requireInsertable(elf);
        Input in = Input.read(elf);
        return rewrite(in, insertions, Map.of(), fragmentAssembler(in, counters, insertions.size()), counters);
    }

    /**
     * The assembler of an input's fragments, with the input's symbols and the runtime's, for rewrites of
     * at most {@code maxInsertions} insertions (a bound of the counter slots: {@link Counters#slots(List, FragmentAssembler)}).
     */
    static FragmentAssembler fragmentAssembler(Input in, Counters counters, int maxInsertions) {
        return new FragmentAssembler(in.target(), in.decoder(), new FragmentSymbols(in.elf(), in.functionStarts(), counters.data(),
                Math.max(counters.slots(), maxInsertions),
                new SpliceRuntime(counters.runtime())));
    }

    /**
     * One rewrite of an input that {@link Input#requireInsertable} accepted; {@code predecoded}
     * (bulk mode) holds functions decoded already, {@code fragments} the assembler of the fragments;
     * {@code counters} the counters and the data area ({@link DataArea}) asked for.
     */
    static byte[] rewrite(Input in, List<Insertion> insertions, Map<Long, MovedFunction> predecoded,
                          FragmentAssembler fragments, Counters counters) {
        ElfFile elf = in.elf();
        int slots = counters.slots(insertions, fragments);
        ExitHook exitHook = slots > 0 || fragments.symbols().runtime().hasExitFunction() ? ExitHook.of(in) : null;
        MovedCode moved = Planner.plan(in, insertions, exitHook != null ? exitHook.insertions() : List.of(), predecoded,
                fragments);
        Phases.mark("decode moved functions");
        // The BAT's blocks (BOLT's CFG of each moved input function) need only the plan: the other core
        // makes them during layout and encoding.
        Background<Map<MovedFunction, long[]>> inputBlocks = Background.start("bat blocks",
                () -> BatBuilder.inputBlocks(elf, moved));
        ElfEditor editor = elf.edit();
        DataArea data = fragments.symbols().data();
        Layout layout = new Layout(in, moved, fragments, data);
        layout.prepareFragments();
        boolean withRuntime = slots > 0 || fragments.symbols().runtimeUsed();
        SpliceRuntime runtime = fragments.symbols().runtime();
        long dataSize = withRuntime ? runtime.dataSize(data, slots) : data.sizeWith(false, slots);
        if (dataSize > fragments.symbols().maxDataSize()) {
            throw new IllegalStateException("a data area of " + dataSize + " bytes exceeds its bound " + fragments.symbols().maxDataSize());
        }
        if (dataSize > 0) {
            DataArea.add(editor, data.address(), dataSize); // first: the code goes above it
        }
        // Grows .symtab: after the data area (whose address the fragments were assembled with, and
        // whose reserve covers the growth), before the code's address and file offset are chosen.
        Map<MovedFunction, Integer> oldBodies = SymbolMover.markOldBodies(elf, moved, editor);
        long environ = fragments.symbols().environ();
        int runtimeSize = withRuntime ? runtime.size() : 0;
        // A second pass grows the first pass's code segment, unless the data area took a segment of its own.
        EarlierCodeSegment earlier = editor.segments().size() == elf.segments().size() ? EarlierCodeSegment.of(editor) : null;
        long base = NewSection.address(editor, moved, runtimeSize, OutputRelocations.reserve(in, moved)
                + (withRuntime ? runtime.relocationReserve() : 0), earlier);
        long codeStart = (base + runtimeSize + 7) & -8;
        long codeEnd = layout.place(codeStart);
        long stubAt = (codeEnd + 3) & -4; // the .fini_array hook's stub of a dynamic binary, if any, follows the code
        long end = exitHook != null && exitHook.stubSize() > 0 ? stubAt + exitHook.stubSize() : codeEnd;
        Phases.mark("layout");
        byte[] text = new NewSectionEncoder(moved, in.file(), fragments, base).encode(base, codeStart, end);
        // The runtime's parameters follow the code, in a read-only section of their own (no data in code for BOLT),
        // never right at the code's end: BOLT takes a reference to that address for the end of the last function.
        long parameters = withRuntime ? (base + text.length + runtime.rodataAlignment()) & -runtime.rodataAlignment()
                : (base + text.length + 7) & -8;
        SpliceRuntime.Image image = withRuntime ? runtime.link(base, parameters, data, environ, slots, counters.file(),
                fragments.symbols().binary()) : null;
        byte[] rodata = withRuntime ? image.rodata() : new byte[0];
        if (withRuntime) {
            System.arraycopy(image.code(), 0, text, 0, runtimeSize);
        }
        if (end != codeEnd) {
            byte[] stub = exitHook.stub(stubAt, base, moved, runtime);
            System.arraycopy(stub, 0, text, (int) (stubAt - base), stub.length);
        }
        Phases.mark("encode");
        // The BAT and the build-id hash of the new code depend only on the layout: the other core makes them.
        byte[] oldId = elf.buildId().orElse(null);
        Trampolines trampolines = new Trampolines(in, moved);
        BatTables previousBat = BatTables.enabledFor(elf) ? BatTables.read(elf) : null; // a second pass composes the maps
        Map<MovedFunction, long[]> blocks = inputBlocks.join();
        Background<SideWork> side = Background.start("bat", () -> new SideWork(new BatBuilder(moved, trampolines, blocks, previousBat).encode(),
                oldId == null ? null : BuildIds.start(oldId, text)));
        ReferenceRetargeter retargeter = new ReferenceRetargeter(in, moved, trampolines);
        List<Patch> patches = new ArrayList<>(retargeter.run());
        patches.addAll(trampolines.write());
        patches.addAll(DynamicSection.retarget(elf, moved));
        if (exitHook != null) {
            patches.addAll(exitHook.patches(in, stubAt)); // after the retargeted references: it wins
        }
        Phases.mark("retarget references");
        for (Patch p : patches) {
            editor.patch(in.image().fileOffset(p.address()), p.bytes());
        }
        int textIndex = editor.addSection(NewSection.NAME, Section.SHT_PROGBITS, Section.SHF_ALLOC | Section.SHF_EXECINSTR,
                base, 8, 0, 0, 0, text);
        // .eh_frame's continuation, when an FDE must grow, follows the code in the same segment.
        long framesAddress = (parameters + rodata.length + 7) & -8;
        EhFrameRewriter frameRewriter = new EhFrameRewriter(elf, moved, in.relocations());
        byte[] frames = frameRewriter.rewrite(editor, framesAddress);
        IntStream.Builder newSections = IntStream.builder().add(textIndex);
        long segmentEnd = base + text.length;
        int framesIndex = -1;
        int rodataIndex = 0;
        if (withRuntime) {
            rodataIndex = editor.addSection(SpliceRuntime.RODATA, Section.SHT_PROGBITS, Section.SHF_ALLOC, parameters,
                    runtime.rodataAlignment(), 0, 0, 0, rodata);
            newSections.add(rodataIndex);
            segmentEnd = parameters + rodata.length;
        }
        if (frames != null) {
            framesIndex = editor.addSection(EhFrameRewriter.SECTION, Section.SHT_PROGBITS, Section.SHF_ALLOC, framesAddress,
                    8, 0, 0, 0, frames);
            newSections.add(framesIndex);
            segmentEnd = framesAddress + frames.length;
        }
        // The program header table grows by this segment: in place when only notes are in its way (they
        // follow the code then), so that loaders and GNU strip find it where they expect; else it moves.
        if (earlier != null) {
            earlier.grow(editor, newSections.build().toArray());
        } else {
            int[] movedForTable = editor.makeRoomForProgramHeaders(editor.segments().size() + 1, (segmentEnd + 7) & -8);
            for (int note : movedForTable) {
                newSections.add(note);
            }
            SymbolMover.moveSectionSymbols(elf, editor, movedForTable);
            editor.addLoadSegment(Segment.PF_R | Segment.PF_X, newSections.build().toArray());
        }
        SymbolMover.moveEntry(elf, moved, editor);
        SymbolMover.moveSymbols(elf, moved, editor, textIndex);
        DynamicSymbols.move(elf, moved, editor, textIndex);
        RuntimeSymbols runtimeSymbols = RuntimeSymbols.NONE;
        if (withRuntime) {
            NavigableMap<Long, long[]> named = runtime.addSymbols(editor, base, textIndex, parameters, rodata.length, rodataIndex,
                    data, slots);
            SpliceRuntime.nameProgramObject(named, elf, environ);
            runtimeSymbols = SpliceRuntime.relocations(image, base, in.decoder(), named);
        }
        new OutputRelocations(in, moved, editor, oldBodies).write(retargeter.newValues(), trampolines, base, text, textIndex,
                frameRewriter, framesIndex, runtimeSymbols);
        Phases.mark("eh_frame, symbols, relocations");
        byte[] bat = side.join().bat();
        java.util.Optional<Section> oldBat = editor.section(BatTables.SECTION_NAME);
        if (oldBat.isPresent()) { // a second pass: one note, which maps to the first input
            editor.setContents(oldBat.get().index(), bat);
        } else {
            editor.addSection(BatTables.SECTION_NAME, Section.SHT_NOTE, 0, 0, 4, 0, 0, 0, bat);
        }
        Phases.mark("BAT");
        if (oldId != null) {
            editor.setBuildId(BuildIds.finish(side.join().codeHash(), oldId.length, BuildIds.patchedWords(patches)));
        }
        Phases.mark("build-id");
        DebugSections.follow(elf, moved, editor);
        Phases.mark("debug info");
        byte[] out = editor.toBytes();
        Phases.mark("ELF bytes");
        return out;
    }
}
