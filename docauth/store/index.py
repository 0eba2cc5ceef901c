"""In-memory 1:N face search over every enrolled template.

All templates sit in one contiguous float32 matrix; a search is one
matrix-vector product (``|x-q|^2 = |x|^2 - 2 x.q + |q|^2`` with the norms kept
up to date), a partial sort, and an exact float64 re-ranking of the few
candidates. Enrolment appends rows; erasure swaps the last rows into the holes,
so the matrix never needs a rebuild. One lock serialises writers and readers:
a search must not see a half-moved row.

    index = FaceIndex.from_store(store)
    hits = index.search(encoding, k=5)      # nearest persons, best first
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from docauth.face_encoding import ENCODING_SIZE



@dataclass(frozen=True)
class IndexHit:
    person_id: int
    distance: float
    template_id: int

    def export(self) -> dict:
        return {"person_id": int(self.person_id), "distance": round(float(self.distance), 6), "template_id": int(self.template_id)}


class FaceIndex:
    """Nearest enrolled persons to a face encoding (Euclidean distance)."""

    def __init__(self, dim: int = ENCODING_SIZE, capacity: int = 1024):
        self.dim = dim
        self._lock = threading.RLock()
        self._n = 0
        self._vectors = np.empty((capacity, dim), dtype=np.float32)
        self._sq_norms = np.empty((capacity,), dtype=np.float32)
        self._person_ids = np.empty((capacity,), dtype=np.int64)
        self._template_ids = np.empty((capacity,), dtype=np.int64)
        self._row_of: dict[int, int] = {}  # template id -> row

    @classmethod
    def from_store(cls, store) -> "FaceIndex":
        template_ids, person_ids, vectors = store.face_template_matrix()
        index = cls()
        index.add_many(template_ids, person_ids, vectors)
        return index

    def __len__(self) -> int:
        return self._n

    @property
    def n_persons(self) -> int:
        with self._lock:
            return int(np.unique(self._person_ids[: self._n]).size)

    def _reserve(self, extra: int) -> None:
        need = self._n + extra
        if need <= self._vectors.shape[0]:
            return
        capacity = max(need, 2 * self._vectors.shape[0])
        for name in ("_vectors", "_sq_norms", "_person_ids", "_template_ids"):
            old = getattr(self, name)
            new = np.empty((capacity, *old.shape[1:]), dtype=old.dtype)
            new[: self._n] = old[: self._n]
            setattr(self, name, new)

    def add(self, template_id: int, person_id: int, encoding) -> None:
        self.add_many([template_id], [person_id], np.asarray(encoding).reshape(1, -1))

    def add_many(self, template_ids, person_ids, vectors) -> None:
        template_ids = np.asarray(template_ids, dtype=np.int64).reshape(-1)
        person_ids = np.asarray(person_ids, dtype=np.int64).reshape(-1)
        vectors = np.asarray(vectors, dtype=np.float32).reshape(-1, self.dim)
        if not (len(template_ids) == len(person_ids) == len(vectors)):
            raise ValueError("template_ids, person_ids and vectors differ in length")
        with self._lock:
            duplicates = [int(t) for t in template_ids if int(t) in self._row_of]
            if duplicates or len(set(template_ids.tolist())) != len(template_ids):
                raise ValueError(f"template ids already indexed: {duplicates[:5]}")
            self._reserve(len(vectors))
            lo, hi = self._n, self._n + len(vectors)
            self._vectors[lo:hi] = vectors
            self._sq_norms[lo:hi] = np.einsum("ij,ij->i", vectors, vectors)
            self._person_ids[lo:hi] = person_ids
            self._template_ids[lo:hi] = template_ids
            for offset, t in enumerate(template_ids.tolist()):
                self._row_of[t] = lo + offset
            self._n = hi

    def _remove_rows(self, rows: list[int]) -> None:
        # Fill each hole (highest first) with the current last row.
        for row in sorted(rows, reverse=True):
            last = self._n - 1
            del self._row_of[int(self._template_ids[row])]
            if row != last:
                self._vectors[row] = self._vectors[last]
                self._sq_norms[row] = self._sq_norms[last]
                self._person_ids[row] = self._person_ids[last]
                self._template_ids[row] = self._template_ids[last]
                self._row_of[int(self._template_ids[row])] = row
            self._n = last

    def remove_template(self, template_id: int) -> bool:
        with self._lock:
            row = self._row_of.get(int(template_id))
            if row is None:
                return False
            self._remove_rows([row])
            return True

    def remove_person(self, person_id: int) -> int:
        """Drop every template of a person (erasure); returns how many."""
        with self._lock:
            rows = np.flatnonzero(self._person_ids[: self._n] == int(person_id)).tolist()
            self._remove_rows(rows)
            return len(rows)

    def search(
        self,
        encoding,
        k: int = 5,
        *,
        max_distance: float | None = None,
        exclude_person: int | None = None,
    ) -> list[IndexHit]:
        """The ``k`` nearest distinct persons (best template each), nearest first."""
        query = np.asarray(encoding, dtype=np.float32).reshape(-1)
        if query.shape != (self.dim,):
            raise ValueError(f"expected a ({self.dim},) encoding, got {query.shape}")
        with self._lock:
            n = self._n
            if n == 0 or k <= 0:
                return []
            vectors = self._vectors[:n]
            # einsum, not `vectors @ query`: a matrix-vector product is memory-bound, and
            # BLAS threads spinning beside busy service workers made it 5x slower here.
            sq = self._sq_norms[:n] - 2.0 * np.einsum("ij,j->i", vectors, query) + float(query @ query)
            if exclude_person is not None:
                sq[self._person_ids[:n] == int(exclude_person)] = np.inf
            want = min(n, 4 * k + 16)
            while True:
                cand = np.argpartition(sq, want - 1)[:want] if want < n else np.arange(n)
                # exact re-ranking: the expansion above loses precision for near vectors
                exact = np.linalg.norm(vectors[cand].astype(np.float64) - query.astype(np.float64), axis=1)
                finite = np.isfinite(sq[cand])
                cand, exact = cand[finite], exact[finite]
                order = np.argsort(exact, kind="stable")
                hits: list[IndexHit] = []
                seen: set[int] = set()
                for i in order:
                    row = int(cand[i])
                    person = int(self._person_ids[row])
                    if person in seen:
                        continue
                    if max_distance is not None and exact[i] > max_distance:
                        break
                    seen.add(person)
                    hits.append(IndexHit(person, float(exact[i]), int(self._template_ids[row])))
                    if len(hits) == k:
                        break
                # Too few distinct persons among the candidates (many templates each): widen.
                if len(hits) == k or want >= n or (max_distance is not None and len(order) and exact[order[-1]] > max_distance):
                    return hits
                want = min(n, want * 4)
