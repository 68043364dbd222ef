"""``sleuth.files``' ranking: Quick-Open scoring of paths for a fuzzy query (``rank``), over the
joined path texts it searches (``path_lines``). The file list itself is the walk's or the index's
catalogue; the glob form needs no ranking.
"""
