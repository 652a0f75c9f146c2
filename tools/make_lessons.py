"""Write the lesson notebooks and their solutions from the lessons' jupytext sources.

The source of lesson ``NN_name`` is ``notebooks/lessons/source/NN_name.md`` (MyST markdown, a jupytext format:
open it in JupyterLab with jupytext, or edit it as text).  Each exercise is two code cells side by side there:

* a cell tagged ``exercise`` with the placeholder the students replace (``None``), and
* right after it a cell tagged ``solution`` with the answer.

This script writes ``notebooks/lessons/NN_name.ipynb`` (the exercise cells, no solution cells) and
``notebooks/lessons/solutions/NN_name.ipynb`` (each exercise cell's text replaced by its solution, tag
``exercise`` kept, and a first cell saying it is the solution notebook).  Notebooks are written without outputs.

    python tools/make_lessons.py           # write the notebooks
    python tools/make_lessons.py --check   # exit 1 if a committed notebook differs from its source

tests/test_lessons_source.py checks that the committed notebooks are what this script writes.
"""
from __future__ import annotations

import sys
from pathlib import Path

import jupytext
import nbformat

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "notebooks" / "lessons"
SOURCES = OUT / "source"
KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


def _tags(cell) -> list[str]:
    return list(cell.metadata.get("tags", []))


def split(source: Path) -> tuple[nbformat.NotebookNode, nbformat.NotebookNode]:
    """(lesson, solution) notebooks of one source file; ValueError if an exercise has no solution after it."""
    nb = jupytext.read(source, fmt="md:myst")
    lesson, solution = [], []
    cells = nb.cells
    for i, cell in enumerate(cells):
        tags = _tags(cell)
        if "solution" in tags:
            if i == 0 or "exercise" not in _tags(cells[i - 1]):
                raise ValueError(f"{source.name}: cell {i} is tagged 'solution' but does not follow an exercise")
            continue
        if cell.cell_type == "code":
            new = nbformat.v4.new_code_cell(cell.source, metadata={"tags": tags} if tags else {})
        else:
            new = nbformat.v4.new_markdown_cell(cell.source)
        lesson.append(new)
        if "exercise" in tags:
            if i + 1 >= len(cells) or "solution" not in _tags(cells[i + 1]):
                raise ValueError(f"{source.name}: the exercise cell {i} has no 'solution' cell after it")
            solution.append(nbformat.v4.new_code_cell(cells[i + 1].source, metadata={"tags": tags}))
        else:
            solution.append(nbformat.v4.new_code_cell(cell.source) if cell.cell_type == "code"
                            else nbformat.v4.new_markdown_cell(cell.source))
    head = nbformat.v4.new_markdown_cell(f"**Solution notebook** — for teachers; the exercise version is "
                                         f"`../{source.stem}.ipynb`.")
    out = []
    for cells_ in (lesson, [head] + solution):
        book = nbformat.v4.new_notebook()
        book.metadata["kernelspec"] = dict(KERNELSPEC)
        book.cells = cells_
        for k, cell in enumerate(book.cells):
            cell["id"] = f"c{k:02d}"
        out.append(book)
    return out[0], out[1]


def build() -> dict[Path, str]:
    """{path: notebook JSON text} of every lesson and solution."""
    files = {}
    for source in sorted(SOURCES.glob("*.md")):
        lesson, solution = split(source)
        files[OUT / f"{source.stem}.ipynb"] = nbformat.writes(lesson) + "\n"
        files[OUT / "solutions" / f"{source.stem}.ipynb"] = nbformat.writes(solution) + "\n"
    return files


def main(argv: list[str]) -> int:
    files = build()
    if "--check" in argv:
        stale = [p for p, text in files.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
        for p in stale:
            print("out of date:", p.relative_to(ROOT))
        return 1 if stale else 0
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print("wrote", path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
