"""The house as a whole: the guides, the course's facts and the rules of its layout."""
