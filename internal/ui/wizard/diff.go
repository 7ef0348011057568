package wizard

// diffLines renders the class-matrix diff of the preview (provisional until
// stamp.Diff lands).
func diffLines(p Preview) ([]string, string) {
	return []string{"(diff pending)"}, "diff pending"
}
